package flbconf

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func checkFile(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	f, err := Parse(path, data)
	require.NoError(t, err)
	var out []string
	for _, fd := range Check(f) {
		out = append(out, strings.TrimPrefix(fd.String(), path+":"))
	}
	return out
}

// TestShippedConfigurationsAreClean: the repository's configuration and
// its copies for the cluster and compose have no error (CI checks every
// shipped configuration with the same code as `journalship check-config`).
func TestShippedConfigurationsAreClean(t *testing.T) {
	for _, p := range []string{"fluent-bit.conf", "deploy/daemonset/fluent-bit.conf", "deploy/compose/fluent-bit.conf"} {
		for _, fd := range checkFile(t, filepath.Join("..", p)) {
			assert.Contains(t, fd, ": note: ", "%s: %s", p, fd)
		}
	}
}

// TestMistakesAreFound: a misspelt key (with the setting meant), an
// unknown one, a key set twice, a value the plugin refuses, Fluent Bit's
// own Log_Level, and a tail input without the offset key the plugin reads.
func TestMistakesAreFound(t *testing.T) {
	got := checkFile(t, "testdata/bad.conf")
	assert.Equal(t, []string{
		"15: error: [OUTPUT journalship] Loki_Ulr: unknown key: neither Fluent Bit nor journalship takes it; did you mean Loki_URL?",
		"16: error: [OUTPUT journalship] Url: unknown key: neither Fluent Bit nor journalship takes it",
		"18: error: [OUTPUT journalship] Tenant_ID: set again (first on line 17): Fluent Bit hands the plugin the first value only",
		"20: note: [OUTPUT journalship] Log_Level: Fluent Bit takes this key for the output itself; the plugin never sees it and logs at info",
		`12: error: [OUTPUT journalship] setting Max_Line_Bytes: "17179869185G" is larger than 1099511627776 bytes (1T), which no setting takes: a typo?`,
		"12: warning: [OUTPUT journalship] Retry_Limit: not set (Fluent Bit retries a chunk once): a chunk whose retries run out while Loki is down is dropped, and its lines wait for the retention agent's next sweep (or journalship finalize) to be shipped; set Retry_Limit no_limits",
		`4: error: [INPUT tail] Offset_Key: is none, but the journalship output (line 12) reads the line's byte offset from the record key "offset" (Offset_Key): set Offset_Key offset here`,
	}, got)
}

// TestSharedDBIsFound: a tail input routed to journalship whose DB is
// another tail input's (spelt differently) is an error; inputs that do
// not reach journalship are not the check's business.
func TestSharedDBIsFound(t *testing.T) {
	got := checkFile(t, "testdata/shared-db.conf")
	assert.Equal(t, []string{
		"19: error: [INPUT tail] DB: /var/lib/journalship/./tail.db is also the DB of the tail input on line 1: at start each tail input deletes the offsets of the files it does not tail from its DB, so the other one reads its files again from the start; give each tail input its own DB",
	}, got)
}

// TestUnboundedTailMemoryIsFound: a tail input routed to journalship
// that keeps its chunks in memory without Mem_Buf_Limit is a warning, one
// without Ignore_Older a note; a bounded one and one not routed to
// journalship are not reported.
func TestUnboundedTailMemoryIsFound(t *testing.T) {
	got := checkFile(t, "testdata/memory.conf")
	assert.Equal(t, []string{
		"4: warning: [INPUT tail] storage.type: chunks are kept in memory and Mem_Buf_Limit is not set: while Loki is down tail keeps reading and memory grows without bound; set storage.type filesystem (and storage.path in [SERVICE]), or Mem_Buf_Limit",
		"4: note: [INPUT tail] Ignore_Older: not set: tail follows every journal under Path, however old, each with a file descriptor, an inotify watch and a read buffer of at least Buffer_Chunk_Size; set Ignore_Older (with Ignore_Active_Older_Files On) and backfill older journals with journalship ship",
	}, got)
}

// TestTagPerFileIsNoted: a tail input routed to journalship with a `*`
// in its Tag (a tag, so chunks, per file) is a note; one shared tag, and
// an input not routed to journalship, are not reported.
func TestTagPerFileIsNoted(t *testing.T) {
	got := checkFile(t, "testdata/tag.conf")
	assert.Equal(t, []string{
		"3: note: [INPUT tail] Tag: sessions.cortex.*: a tag per file, so every append to a journal is a flush of its own (several requests to Loki and a ledger commit, about six times the CPU); give the input one tag without `*`",
	}, got)
}

func TestYAMLMistakesAreFound(t *testing.T) {
	got := checkFile(t, "testdata/bad.yaml")
	assert.Equal(t, []string{
		"16: error: [OUTPUT journalship] dead_leter_path: unknown key: neither Fluent Bit nor journalship takes it; did you mean Dead_Letter_Path?",
	}, got)
}

func TestWildcard(t *testing.T) {
	for _, c := range []struct {
		pattern, s string
		want       bool
	}{
		{"*", "x", true}, {"sessions.*", "sessions.a.b", true}, {"sessions.*", "other.a", false},
		{"a*b*c", "axxbyyc", true}, {"a*b*c", "axxbyy", false}, {"exact", "exact", true}, {"", "x", false},
	} {
		assert.Equal(t, c.want, wildcard(c.pattern, c.s), "%q ~ %q", c.pattern, c.s)
	}
}

// TestRetryLimitThatDropsChunksIsFound: only an unlimited Retry_Limit
// keeps a chunk through an outage of any length.
func TestRetryLimitThatDropsChunksIsFound(t *testing.T) {
	for limit, warned := range map[string]bool{"no_limits": false, "False": false, "off": false, "5": true, "no_retries": true} {
		conf := "[OUTPUT]\n    Name journalship\n    Match *\n    Retry_Limit " + limit + "\n"
		f, err := Parse("x.conf", []byte(conf))
		require.NoError(t, err)
		var got []string
		for _, fd := range Check(f) {
			if fd.Key == "Retry_Limit" {
				got = append(got, fd.String())
			}
		}
		if !warned {
			assert.Empty(t, got, limit)
			continue
		}
		require.Len(t, got, 1, limit)
		assert.Contains(t, got[0], "x.conf:4: warning: [OUTPUT journalship] Retry_Limit: "+limit+": a chunk whose retries run out")
	}
}
