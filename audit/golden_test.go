package audit

import (
	"bytes"
	"flag"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/journalship/journalship/internal/sample"
	"github.com/journalship/journalship/internal/sample/cortex"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// fixture audits the Cortex Plane generator's golden corpus, written to a temp
// directory that becomes the working directory (so paths are relative).
func fixture(t *testing.T) (*sample.Corpus, []Report, []JobReport) {
	t.Helper()
	c, err := cortex.Generate(cortex.FixtureConfig())
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, c.WriteTo(dir))
	t.Chdir(dir)
	var reports []Report
	jobs, err := Tree([]string{"."}, DefaultConfig(), func(r Report) { reports = append(reports, r) })
	require.NoError(t, err)
	require.Len(t, reports, len(c.Files))
	return c, reports, jobs
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join(testdataDir, name)
	if *update {
		require.NoError(t, os.WriteFile(path, got, 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test ./audit/ -run Golden -update to create it")
	assert.Equal(t, string(want), string(got), "%s differs (rerun with -update if intended)", name)
}

var testdataDir = func() string {
	wd, err := os.Getwd()
	if err != nil {
		panic(err)
	}
	return filepath.Join(wd, "testdata")
}()

func TestGoldenFixtureTableAndJSON(t *testing.T) {
	_, reports, jobs := fixture(t)
	var table, js bytes.Buffer
	tw, jw := NewTableWriter(&table, DefaultConfig()), NewJSONWriter(&js)
	for _, r := range reports {
		require.NoError(t, tw.Write(r))
		require.NoError(t, jw.Write(r))
	}
	ts, err := tw.Close(jobs)
	require.NoError(t, err)
	js2, err := jw.Close(jobs)
	require.NoError(t, err)
	assert.Equal(t, ts, js2)
	assert.Equal(t, Warning, ts.Level)
	golden(t, "fixture_table.golden", table.Bytes())
	golden(t, "fixture_json.golden", js.Bytes())
}

// TestFixtureMatchesTheCorpusTruth checks every report against what the
// generator wrote: partial tails, corrupt lines, gaps, regressions,
// schema-invalid lines, end reasons; and the seed model.
func TestFixtureMatchesTheCorpusTruth(t *testing.T) {
	c, reports, _ := fixture(t)
	byRel := map[string]sample.File{}
	for _, f := range c.Files {
		byRel[f.Rel] = f
	}
	for _, r := range reports {
		f, ok := byRel[filepath.ToSlash(r.Path)]
		require.True(t, ok, r.Path)
		t.Run(f.Rel, func(t *testing.T) {
			checkTruth(t, f, r)
			assert.Equal(t, assessSeed(string(f.Data), 0.1, DefaultMaxLineBytes), seedOf(r))
			assert.True(t, r.ModTime.Equal(f.LastTime()), "mtime")
		})
	}
}

func checkTruth(t *testing.T, f sample.File, r Report) {
	t.Helper()
	corrupt, schemaInvalid, regressions := 0, 0, 0
	gaps := []Gap{}
	for _, l := range f.Lines {
		if l.Corrupt {
			corrupt++
		}
		for _, e := range l.Expect {
			switch {
			case e == "schema_invalid":
				schemaInvalid++
			case e == "seq_regression":
				regressions++
			case strings.HasPrefix(e, "seq_gap:"):
				gaps = append(gaps, truthGap(t, e, l.Offset))
			}
		}
	}
	total := len(f.Lines)
	switch {
	case len(f.PartialTail) > 0:
		total++
		assert.True(t, r.TailTruncated)
		assert.Equal(t, len(f.PartialTail), r.TailBytes)
		assert.Equal(t, int64(len(f.Data)-len(f.PartialTail)), r.TailOffset)
	case len(f.Lines) > 0 && f.Lines[len(f.Lines)-1].Corrupt:
		corrupt--
		assert.True(t, r.TailTruncated)
	default:
		assert.False(t, r.TailTruncated)
	}
	assert.Equal(t, total, r.TotalLines, "total")
	assert.Equal(t, corrupt, r.CorruptLines, "corrupt")
	assert.Equal(t, schemaInvalid, r.SchemaInvalidLines, "schema invalid")
	assert.Equal(t, gaps, r.SeqGaps, "gaps")
	assert.Equal(t, regressions, r.DuplicateSeqs+r.Regressions, "regressions")
	assert.Equal(t, f.EndReason, r.EndReason)
	assert.Equal(t, f.EndReason != "", r.SessionEnded)
	assert.Equal(t, int64(len(f.Data)), r.Size)
	assert.Empty(t, r.Problems)
}

func truthGap(t *testing.T, e string, off int64) Gap {
	a, b, ok := strings.Cut(strings.TrimPrefix(e, "seq_gap:"), "-")
	require.True(t, ok, e)
	from, err := strconv.ParseInt(a, 10, 64)
	require.NoError(t, err)
	to, err := strconv.ParseInt(b, 10, 64)
	require.NoError(t, err)
	return Gap{From: from, To: to, Offset: off}
}

// TestSeedModelAgreesOnDamagedJournals damages generated journals the
// ways crashes and disks do and checks the seed's counts against the
// independent model, on every file.
func TestSeedModelAgreesOnDamagedJournals(t *testing.T) {
	cfg := cortex.DefaultConfig()
	cfg.Start = time.Date(2026, 2, 23, 14, 30, 22, 0, time.UTC)
	c, err := cortex.Generate(cfg)
	require.NoError(t, err)
	x := rand.New(rand.NewPCG(31, 7))
	for i := range 600 {
		f := c.Files[i%len(c.Files)]
		data := f.Data
		for range 1 + x.IntN(3) {
			data = mutate(x, data)
		}
		r := auditString(t, string(data), DefaultConfig())
		want := assessSeed(string(data), 0.1, DefaultMaxLineBytes)
		if !assert.Equal(t, want, seedOf(r), "mutation %d of %s", i, f.Rel) {
			t.Logf("content: %q", data)
			return
		}
		tail := 0
		if r.TailTruncated {
			tail = 1
		}
		assert.Equal(t, r.TotalLines, r.ValidLines+r.CorruptLines+tail)
		assert.LessOrEqual(t, r.SchemaInvalidLines, r.ValidLines)
	}
}

// BenchmarkAudit audits a generated corpus from memory (MB/s is the
// auditor's CPU throughput, without disk).
func BenchmarkAudit(b *testing.B) {
	cfg := cortex.DefaultConfig()
	cfg.Jobs = 40
	cfg.Start = time.Date(2026, 2, 23, 14, 30, 22, 0, time.UTC)
	c, err := cortex.Generate(cfg)
	require.NoError(b, err)
	size, lines := 0, 0
	for _, f := range c.Files {
		size += len(f.Data)
		lines += len(f.Lines)
	}
	acfg := DefaultConfig()
	b.SetBytes(int64(size))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		for _, f := range c.Files {
			if _, err := Reader(bytes.NewReader(f.Data), f.Rel, acfg); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*lines), "ns/line")
}
