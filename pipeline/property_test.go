package pipeline

import (
	"context"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/journalship/journalship/chunk"
	"github.com/stretchr/testify/require"
)

var (
	propSeed  = flag.Int64("prop.seed", 0, "first case seed of TestSeqContinuityProperty (0: from the clock)")
	propCases = flag.Int("prop.cases", 200, "number of cases of TestSeqContinuityProperty")
	propBurst = flag.Int("prop.burst", 6, "longest burst of stale lines TestSeqContinuityProperty writes")
)

// TestSeqContinuityProperty: random journals (1..300 lines per file, lost
// seq ranges, bursts of stale repeats and regressions, torn writes, empty
// and whitespace-only lines, CRLF files, a partial last line) are cut into
// random chunks of 1..20 lines and delivered in random order, with 503s
// (the chunk is retried later), chunks delivered twice, two chunks in one
// flush and restarts (a new Pipeline from the same Config and Deps). Every
// line, every time it reaches Loki, must carry exactly the annotations
// computed independently by truth(): no false one, no missed one.
//
// Each case logs its seed on failure; reproduce one case with
// go test ./pipeline -run TestSeqContinuityProperty -prop.seed=N -prop.cases=1
func TestSeqContinuityProperty(t *testing.T) {
	cfg := defaultGenConfig()
	cfg.staleBurst = max(1, *propBurst)
	runProperty(t, cfg)
}

func runProperty(t *testing.T, cfg genConfig) {
	base := *propSeed
	if base == 0 {
		base = time.Now().UnixNano() % 1_000_000_000
	}
	start := time.Now()
	failed := 0
	for i := range *propCases {
		seed := base + int64(i)
		ok := t.Run("seed="+strconv.FormatInt(seed, 10), func(t *testing.T) {
			runContinuityCase(t, seed, cfg)
		})
		if !ok {
			failed++
		}
	}
	t.Logf("%d cases from seed %d in %v, %d failed", *propCases, base, time.Since(start).Round(time.Millisecond), failed)
}

// delivery is one flush of records.
type delivery struct {
	recs []chunk.Record
	desc string
	dup  bool // already a second delivery
}

func runContinuityCase(t *testing.T, seed int64, cfg genConfig) {
	rng := rand.New(rand.NewSource(seed))
	// Corrupt lines take the previous line's time, or Fluent Bit's read
	// time at a chunk's start: in the corrupt stream those are hours
	// apart, and the stream window would re-stamp some of them. Windows
	// are not this property's subject.
	e := newEnv(t, func(c *Config) { c.MaxBehind = 0 })
	root := t.TempDir()
	var files []*genFile
	var queue []delivery
	for n := range 1 + rng.Intn(3) {
		f, err := generate(rng, cfg, root, n)
		require.NoError(t, err)
		recs, err := f.records()
		require.NoError(t, err)
		files = append(files, f)
		for i := 0; i < len(recs); {
			k := min(1+rng.Intn(20), len(recs)-i)
			queue = append(queue, delivery{recs: recs[i : i+k], desc: fmt.Sprintf("file %d lines %d-%d", n, i, i+k-1)})
			i += k
		}
	}
	rng.Shuffle(len(queue), func(i, j int) { queue[i], queue[j] = queue[j], queue[i] })
	story := deliver(t, e, rng, queue)
	checkLanded(t, e, files, seed, story)
}

// deliver ships every delivery with faults and returns what happened.
func deliver(t *testing.T, e *env, rng *rand.Rand, queue []delivery) []string {
	var story []string
	later := func(d delivery) {
		at := len(queue)
		if at > 0 {
			at = 1 + rng.Intn(at)
		}
		queue = append(queue[:at], append([]delivery{d}, queue[at:]...)...)
	}
	for len(queue) > 0 {
		d := queue[0]
		queue = queue[1:]
		if len(queue) > 0 && rng.Float64() < 0.15 { // two chunks in one flush
			d = delivery{recs: append(append([]chunk.Record(nil), d.recs...), queue[0].recs...), desc: d.desc + " + " + queue[0].desc, dup: d.dup || queue[0].dup}
			queue = queue[1:]
		}
		if rng.Float64() < 0.05 {
			p, err := New(e.pipe.cfg, e.pipe.deps)
			require.NoError(t, err)
			e.pipe = p
			story = append(story, "restart")
		}
		if rng.Float64() < 0.15 {
			e.cap.setStatus(503)
			res, err := e.pipe.Ship(context.Background(), d.recs, "t")
			e.cap.setStatus(204)
			if err == nil {
				// Every line of a chunk delivered again is in the ledger
				// already: nothing is sent, so Loki's 503 is not seen.
				require.True(t, d.dup, "only a chunk shipped before needs no Loki: %s", d.desc)
				require.Equal(t, len(d.recs), res.AlreadyShipped)
				story = append(story, "already shipped "+d.desc)
				continue
			}
			var re *RetryError
			require.ErrorAs(t, err, &re, "a 503 is retried")
			story = append(story, "503 "+d.desc)
			later(d)
			continue
		}
		_, err := e.pipe.Ship(context.Background(), d.recs, "t")
		require.NoError(t, err, d.desc)
		story = append(story, d.desc)
		if !d.dup && rng.Float64() < 0.1 {
			d.dup = true
			later(d)
		}
	}
	return story
}

// checkLanded asserts that every line reached the capture server at least
// once and that every copy carries exactly its true annotations.
func checkLanded(t *testing.T, e *env, files []*genFile, seed int64, story []string) {
	byPlace := map[string][]capturedEntry{}
	for _, en := range e.cap.entries() {
		k := en.md["file"] + "@" + en.md["byte_offset"]
		byPlace[k] = append(byPlace[k], en)
	}
	var bad []string
	for n, f := range files {
		wants := truth(f)
		for i, l := range f.lines {
			es := byPlace[f.path+"@"+strconv.FormatInt(l.offset, 10)]
			if len(es) == 0 {
				bad = append(bad, fmt.Sprintf("file %d line %d (offset %d): never shipped", n, i, l.offset))
				continue
			}
			w := wants[l.offset]
			for _, en := range es {
				got := want{annotations: en.md["annotations"], seqGap: en.md["seq_gap"], seqRepeat: en.md["seq_repeat"], seqRegr: en.md["seq_regression"]}
				if en.line != l.text || got != w {
					bad = append(bad, fmt.Sprintf("file %d line %d (offset %d, %s, seq %s, crlf %v, seqs of the 8 lines before: %s): want %+v, got %+v",
						n, i, l.offset, l.what, seqText(l), f.crlf, seqsBefore(f, i, 8), w, got))
				}
			}
		}
	}
	dl, err := os.ReadFile(e.dlPath)
	require.NoError(t, err)
	if len(dl) > 0 {
		bad = append(bad, "dead letters: "+string(dl))
	}
	if len(bad) > 0 {
		t.Errorf("seed %d: %d wrong lines, first ones:\n%s\nreproduce (-v lists the deliveries): go test ./pipeline -run TestSeqContinuityProperty -prop.seed=%d -prop.cases=1 -prop.burst=%d",
			seed, len(bad), strings.Join(bad[:min(len(bad), 8)], "\n"), seed, *propBurst)
		if testing.Verbose() {
			t.Logf("deliveries: %s", strings.Join(story, "; "))
		}
	}
}

// seqsBefore lists the seqs of up to n lines before line i ("-" for a line
// without one).
func seqsBefore(f *genFile, i, n int) string {
	var out []string
	for _, l := range f.lines[max(0, i-n):i] {
		out = append(out, seqText(l))
	}
	return strings.Join(out, " ")
}

func seqText(l genLine) string {
	if !l.hasSeq {
		return "-"
	}
	return strconv.FormatInt(l.seq, 10)
}
