package journalfile_test

import (
	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/format/cortex"
	"github.com/journalship/journalship/journalfile"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// j makes a journal line: type, timestamp and the given fields.
func j(typ string, fields string) string {
	if fields != "" {
		fields = "," + fields
	}
	return `{"type":"` + typ + `","timestamp":"2026-11-21T10:00:00Z"` + fields + `}`
}

func writeJournal(t *testing.T, lines ...string) (string, []int64) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "j.jsonl")
	var offs []int64
	var b strings.Builder
	for _, l := range lines {
		offs = append(offs, int64(b.Len()))
		b.WriteString(l)
		b.WriteByte('\n')
	}
	require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o644))
	return path, offs
}

func TestLookbehind(t *testing.T) {
	lines := []string{
		j("SESSION_START", `"seq":0`),
		j("LLM_REQUEST", `"seq":1,"step_index":0,"model":"m-old"`),
		j("LLM_REQUEST", `"seq":2,"step_index":1,"model":"m-new"`),
		`{"type":"LLM_RESP`, // torn line, no seq
		j("LLM_RESPONSE", `"seq":4,"step_index":1`),
	}
	path, offs := writeJournal(t, lines...)
	r, err := journalfile.New(journalfile.DefaultConfig())
	require.NoError(t, err)

	b, err := r.Lookbehind(path, offs[4], []byte(lines[4]), 1, cortexJudge())
	require.NoError(t, err)
	assert.Equal(t, journalfile.Before{SeqKnown: true, PrevSeq: 2, Model: "m-new", Exact: true, RequestStep: 1, RequestModel: "m-new"}, noTime(b), "walks over the torn line")

	b, err = r.Lookbehind(path, offs[2], []byte(lines[2]), 0, cortexJudge())
	require.NoError(t, err)
	assert.Equal(t, journalfile.Before{SeqKnown: true, PrevSeq: 1, Model: "m-old", Exact: true, RequestModel: "m-old"}, noTime(b))

	b, err = r.Lookbehind(path, offs[4], []byte(lines[4]), -1, cortexJudge())
	require.NoError(t, err)
	assert.Equal(t, journalfile.Before{SeqKnown: true, PrevSeq: 2, Exact: true, RequestStep: 1, RequestModel: "m-new"}, noTime(b), "the nearest request, whatever its step")
	assert.EqualValues(t, 3, r.Reads())

	b, err = r.Lookbehind(path, 0, []byte(lines[0]), -1, cortexJudge())
	require.NoError(t, err)
	assert.Equal(t, journalfile.Before{SeqKnown: true, AtStart: true}, noTime(b))
}

func TestLookbehindAtStartWithoutSeq(t *testing.T) {
	lines := []string{`garbage`, j("ERROR", `"seq":5`), `{"seq":3}`}
	path, offs := writeJournal(t, lines...)
	r, _ := journalfile.New(journalfile.DefaultConfig())
	b, err := r.Lookbehind(path, offs[1], []byte(lines[1]), -1, cortexJudge())
	require.NoError(t, err)
	assert.Equal(t, journalfile.Before{SeqKnown: true, AtStart: true, Exact: true}, noTime(b))
	b, err = r.Lookbehind(path, offs[2], []byte(lines[2]), -1, cortexJudge())
	require.NoError(t, err)
	assert.Equal(t, journalfile.Before{SeqKnown: true, PrevSeq: 5, Exact: true}, noTime(b))
}

func TestLookbehindWindowExhausted(t *testing.T) {
	big := `{"type":"X","pad":"` + strings.Repeat("a", 8000) + `"}`
	lines := []string{j("ERROR", `"seq":0`), big, j("ERROR", `"seq":9`)}
	path, offs := writeJournal(t, lines...)
	r, err := journalfile.New(journalfile.Config{Window: 4096, FirstLineMax: 1024})
	require.NoError(t, err)
	b, err := r.Lookbehind(path, offs[2], []byte(lines[2]), -1, cortexJudge())
	require.NoError(t, err)
	assert.False(t, b.SeqKnown, "no sequenced line within the window and not at the file start")
}

func TestLookbehindChangedFile(t *testing.T) {
	path, offs := writeJournal(t, j("ERROR", `"seq":0`), j("ERROR", `"seq":1`))
	r, _ := journalfile.New(journalfile.DefaultConfig())
	_, err := r.Lookbehind(path, offs[1], []byte(`{"seq":7}`), -1, cortexJudge())
	assert.ErrorIs(t, err, journalfile.ErrChanged)
	_, err = r.Lookbehind(path, 3, []byte(`ype"`), -1, cortexJudge())
	assert.ErrorIs(t, err, journalfile.ErrChanged, "an offset inside a line is refused")
	_, err = r.Lookbehind(filepath.Join(t.TempDir(), "gone"), 10, []byte("x"), -1, cortexJudge())
	assert.ErrorIs(t, err, os.ErrNotExist)
}

func TestFirstLine(t *testing.T) {
	path, _ := writeJournal(t, `{"type":"SESSION_START"}`, `{}`)
	r, _ := journalfile.New(journalfile.DefaultConfig())
	l, err := r.FirstLine(path)
	require.NoError(t, err)
	assert.Equal(t, `{"type":"SESSION_START"}`, string(l))

	partial := filepath.Join(t.TempDir(), "p.jsonl")
	require.NoError(t, os.WriteFile(partial, []byte(`{"type":"SESS`), 0o644))
	_, err = r.FirstLine(partial)
	assert.ErrorContains(t, err, "no complete first line")
}

func TestConfigValidate(t *testing.T) {
	assert.NoError(t, journalfile.DefaultConfig().Validate())
	assert.Error(t, journalfile.Config{Window: 10, FirstLineMax: 2048}.Validate())
	assert.Error(t, journalfile.Config{Window: 8192, FirstLineMax: 1}.Validate())
}

func TestLookbehindTakesTheHighestRecentSeq(t *testing.T) {
	lines := []string{j("E", `"seq":0`), j("E", `"seq":1`), j("E", `"seq":9`)}
	for range 12 { // a long burst of stale lines
		lines = append(lines, j("E", `"seq":2`))
	}
	lines = append(lines, j("E", `"seq":10`))
	path, offs := writeJournal(t, lines...)
	r, _ := journalfile.New(journalfile.DefaultConfig())
	b, err := r.Lookbehind(path, offs[len(offs)-1], []byte(lines[len(lines)-1]), -1, cortexJudge())
	require.NoError(t, err)
	assert.Equal(t, journalfile.Before{SeqKnown: true, PrevSeq: 9, Exact: true}, noTime(b), "stale seqs do not hide seq 9")
}

// cortexJudge judges the look-behind's lines as Cortex Plane events, the
// format of these tests' journals.
func cortexJudge() format.Judge { return cortex.New().NewJudge() }

func TestReplay(t *testing.T) {
	r, err := journalfile.New(journalfile.DefaultConfig())
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "j.jsonl")
	data := "{\"a\":1}\r\n{\"a\":2}\n{\"a\":3}\n"
	require.NoError(t, os.WriteFile(path, []byte(data), 0o644))
	var got []string
	collect := func(l []byte) { got = append(got, string(l)) }
	require.NoError(t, r.Replay(path, 17, []byte(`{"a":3}`), collect))
	assert.Equal(t, []string{`{"a":1}`, `{"a":2}`}, got, "lines before the offset, in order, \\r stripped")
	got = nil
	require.NoError(t, r.Replay(path, 0, []byte(`{"a":1}`), collect))
	assert.Empty(t, got, "nothing precedes the first line")
	assert.ErrorIs(t, r.Replay(path, 17, []byte(`{"a":9}`), collect), journalfile.ErrChanged, "the file no longer holds the line")
	assert.ErrorIs(t, r.Replay(path, 16, []byte(`{"a":3}`), collect), journalfile.ErrChanged, "the offset is not a line's start")
}

// noTime clears what a look-behind found of times, for the tests about
// seqs and models.
func noTime(b journalfile.Before) journalfile.Before {
	b.Time, b.HasTime = time.Time{}, false
	return b
}

// TestLookbehindFindsTheNearestTime: a line without a readable time takes
// the time of the nearest line before it that has one, over torn lines.
func TestLookbehindFindsTheNearestTime(t *testing.T) {
	lines := []string{
		j("SESSION_START", `"seq":0`),
		`{"type":"LLM_REQUEST","timestamp":"2026-11-21T10:00:07Z","seq":1,"step_index":0,"model":"m"}`,
		`{"type":"LLM_RESP`,
		`not json`,
	}
	path, offs := writeJournal(t, lines...)
	r, err := journalfile.New(journalfile.DefaultConfig())
	require.NoError(t, err)
	b, err := r.Lookbehind(path, offs[3], []byte(lines[3]), -1, cortexJudge())
	require.NoError(t, err)
	assert.True(t, b.HasTime)
	assert.Equal(t, time.Date(2026, 11, 21, 10, 0, 7, 0, time.UTC), b.Time.UTC())
	b, err = r.Lookbehind(path, offs[0], []byte(lines[0]), -1, cortexJudge())
	require.NoError(t, err)
	assert.False(t, b.HasTime, "nothing before the first line")
}
