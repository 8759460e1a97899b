package deploy

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Open files and memory for a node's journals.

// minNofile is the open-file limit Fluent Bit and the retention agent get:
// tail holds a descriptor per followed journal.
const minNofile = 65536

// nodeJournals is how many followed journals the shipped tail settings
// are sized for on one node.
const nodeJournals = 10000

// wrappedFluentBit checks that the container runs Fluent Bit through
// `journalship exec --nofile N --` with N at least minNofile, and returns
// Fluent Bit's own arguments.
func wrappedFluentBit(t *testing.T, ctr corev1.Container) []string {
	t.Helper()
	img := dockerImage(t)
	require.Equal(t, []string{img.journalship}, ctr.Command, "%s: journalship exec raises the open-file limit", ctr.Name)
	sep := slices.Index(ctr.Args, "--")
	require.Positive(t, sep, "%s: journalship exec [flags] -- fluent-bit ...: %q", ctr.Name, ctr.Args)
	require.Equal(t, "exec", ctr.Args[0])
	n, err := strconv.Atoi(flagArgs(ctr.Args[:sep])["nofile"])
	require.NoError(t, err, "%s: --nofile is set: %q", ctr.Name, ctr.Args)
	assert.GreaterOrEqual(t, n, minNofile, "%s: --nofile", ctr.Name)
	require.Greater(t, len(ctr.Args), sep+1)
	require.Equal(t, img.fluentBit, ctr.Args[sep+1], "%s: exec runs Fluent Bit", ctr.Name)
	return ctr.Args[sep+2:]
}

func TestDaemonSetRaisesTheOpenFileLimit(t *testing.T) {
	c := build(t)
	args := wrappedFluentBit(t, container(t, c.ds, "fluent-bit"))
	img := dockerImage(t)
	assert.Equal(t, []string{"-e", img.plugin, "-c", img.conf}, args)
}

func TestComposeRaisesTheOpenFileLimit(t *testing.T) {
	p := compose(t)
	for _, name := range []string{"fluent-bit", "retention"} {
		s := mustService(t, p, name)
		u := s.Ulimits["nofile"]
		require.NotNil(t, u, "%s: ulimits nofile", name)
		soft, hard := u.Soft, u.Hard
		if u.Single > 0 {
			soft, hard = u.Single, u.Single
		}
		assert.GreaterOrEqual(t, soft, minNofile, "%s: soft nofile", name)
		assert.GreaterOrEqual(t, hard, soft, "%s: hard nofile", name)
	}
}

// flbSize parses a Fluent Bit size (16K, 1M, 2G, bytes), reading the
// units as powers of 1024 (an upper bound either way).
func flbSize(t *testing.T, v string) int64 {
	t.Helper()
	mult := int64(1)
	s := strings.ToUpper(strings.TrimSuffix(strings.ToUpper(strings.TrimSpace(v)), "B"))
	switch {
	case strings.HasSuffix(s, "K"):
		mult, s = 1<<10, strings.TrimSuffix(s, "K")
	case strings.HasSuffix(s, "M"):
		mult, s = 1<<20, strings.TrimSuffix(s, "M")
	case strings.HasSuffix(s, "G"):
		mult, s = 1<<30, strings.TrimSuffix(s, "G")
	}
	n, err := strconv.ParseInt(s, 10, 64)
	require.NoError(t, err, "size %q", v)
	return n * mult
}

// flbDuration parses a Fluent Bit time (seconds, or with m, h, d).
func flbDuration(t *testing.T, v string) time.Duration {
	t.Helper()
	units := map[string]time.Duration{"s": time.Second, "m": time.Minute, "h": time.Hour, "d": 24 * time.Hour}
	unit := time.Second
	if u, ok := units[strings.ToLower(v[len(v)-1:])]; ok {
		unit, v = u, v[:len(v)-1]
	}
	n, err := strconv.Atoi(v)
	require.NoError(t, err, "time %q", v)
	return time.Duration(n) * unit
}

// TestTailBoundsMemoryPerJournal: every tail input lets go of idle
// journals (Ignore_Older with Ignore_Active_Older_Files), keeps a small
// read buffer per followed journal, and queues its chunks on disk; with
// those settings nodeJournals followed journals fit the DaemonSet's
// memory limit for Fluent Bit.
func TestTailBoundsMemoryPerJournal(t *testing.T) {
	ds := build(t).ds
	for _, p := range flbConfPaths {
		c := loadFLB(t, p)
		svc := c.only(t, "SERVICE", "")
		chunksUp, err := strconv.Atoi(value(svc, "storage.max_chunks_up"))
		require.NoError(t, err, "%s: storage.max_chunks_up bounds the chunks held in memory", p)
		ins := c.all("INPUT", "tail")
		require.NotEmpty(t, ins)
		for _, in := range ins {
			where := fmt.Sprintf("%s: tail %s", p, value(in, "Tag"))
			if st, _ := in.get("storage.type"); !strings.EqualFold(st, "filesystem") {
				_, ok := in.get("Mem_Buf_Limit")
				assert.True(t, ok, "%s: in memory without Mem_Buf_Limit, a Loki outage grows memory without bound", where)
			}
			older, ok := in.get("Ignore_Older")
			require.True(t, ok, "%s: Ignore_Older keeps tail off old journals", where)
			assert.Positive(t, flbDuration(t, older), where)
			active, _ := in.get("Ignore_Active_Older_Files")
			assert.True(t, strings.EqualFold(active, "on") || strings.EqualFold(active, "true"), "%s: Ignore_Active_Older_Files lets go of journals gone idle", where)
			chunk := flbSize(t, value(in, "Buffer_Chunk_Size"))
			assert.LessOrEqual(t, chunk, int64(32<<10), "%s: Buffer_Chunk_Size is the memory of every followed journal", where)
			assert.GreaterOrEqual(t, flbSize(t, value(in, "Buffer_Max_Size")), chunk, where)
			// Per followed journal: its read buffer and tail's bookkeeping
			// (name, hash entries: a few KiB); the chunks up are ~2 MiB each;
			// the engine, the plugin and the Go runtime take the rest.
			need := int64(nodeJournals)*(chunk+4<<10) + int64(chunksUp)*(2<<20) + 96<<20
			limits := container(t, ds, "fluent-bit").Resources.Limits
			limit := limits.Memory().Value()
			assert.LessOrEqual(t, need, limit, "%s: %d followed journals fit the container's memory limit", where, nodeJournals)
		}
	}
}
