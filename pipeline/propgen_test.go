package pipeline

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/journalship/journalship/chunk"
)

// This file generates random journals for the continuity property test and
// computes what every line must carry, from what the generator wrote, never
// with the product's code.

// genLine is one line the generator wrote.
type genLine struct {
	text    string // without its line ending
	offset  int64  // where the line starts in the file
	hasSeq  bool   // a readable, non-negative integer seq (the line is not corrupt)
	seq     int64
	corrupt bool // a torn write or a blank (whitespace-only) line
	what    string
}

// genFile is one random journal on disk.
type genFile struct {
	path  string
	data  []byte
	crlf  bool
	lines []genLine // every line with content; empty lines (tail skips them) are not listed
}

// genConfig holds the fault rates of the generator.
type genConfig struct {
	maxLines   int     // a file has 1..maxLines lines
	lostHead   float64 // the session's first seqs are lost
	lost       float64 // seqs lost before an event
	stale      float64 // a burst of 1..6 stale lines (repeats, regressions)
	torn       float64 // an event torn by the next one
	blank      float64 // an empty or whitespace-only line
	crlf       float64 // the whole file uses CRLF
	partial    float64 // the file ends with a partial line (never emitted)
	staleBurst int     // longest burst of stale lines
}

func defaultGenConfig() genConfig {
	return genConfig{maxLines: 300, lostHead: 0.15, lost: 0.05, stale: 0.05, torn: 0.04,
		blank: 0.04, crlf: 0.3, partial: 0.1, staleBurst: 6}
}

const (
	propJob     = "01956a3b-7c4d-7e8f-9a1b-2c3d4e5f6789"
	propSession = "01956a3b-8000-7000-8000-00000000000"
	propAgent   = "01956a3b-9000-7000-8000-000000000002"
)

var propTypes = []string{"ERROR", "STATE_TRANSITION", "APPROVAL_REQUESTED"}

// gen writes one journal.
type gen struct {
	rng     *rand.Rand
	cfg     genConfig
	file    int
	next    int64 // the seq the next event takes
	highest int64 // the highest seq written so far, -1 before any
	n       int   // events written, for timestamps
	out     []genLine
}

// event renders one valid event with the given seq.
func (g *gen) event(seq int64) string {
	ts := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC).Add(time.Duration(g.n) * 100 * time.Millisecond)
	g.n++
	head := `{"type":"%s","timestamp":"` + ts.Format("2006-01-02T15:04:05.000Z") + `","job_id":"` + propJob +
		`","session_id":"` + propSession + strconv.Itoa(g.file%10) + `","seq":` + strconv.FormatInt(seq, 10)
	if seq == 0 {
		return fmt.Sprintf(head, "SESSION_START") + `,"buffer_schema_version":1,"agent_id":"` + propAgent + `","pod_name":"pod-1"}`
	}
	return fmt.Sprintf(head, propTypes[g.rng.Intn(len(propTypes))]) + `,"detail":"` + strings.Repeat("x", g.rng.Intn(200)) + `"}`
}

func (g *gen) emit(l genLine) {
	if l.hasSeq && l.seq > g.highest {
		g.highest = l.seq
	}
	g.out = append(g.out, l)
}

func (g *gen) step() {
	r := g.rng.Float64()
	c := g.cfg
	switch {
	case r < c.lost:
		g.next += 1 + int64(g.rng.Intn(5))
	case r < c.lost+c.stale && g.highest >= 0:
		for range 1 + g.rng.Intn(c.staleBurst) {
			seq := g.highest // a repeat
			if g.highest > 0 && g.rng.Intn(3) > 0 {
				seq = g.rng.Int63n(g.highest) // a regression
			}
			g.emit(genLine{text: g.event(seq), hasSeq: true, seq: seq, what: "stale"})
		}
	case r < c.lost+c.stale+c.torn:
		// Two writers interleaved: the first event's beginning, then the
		// whole second event on the same line. Both seqs are swallowed.
		a := g.event(g.next)
		cut := 1 + g.rng.Intn(len(a)-2)
		g.emit(genLine{text: a[:cut] + g.event(g.next+1), corrupt: true, what: "torn"})
		g.next += 2
	case r < c.lost+c.stale+c.torn+c.blank:
		if g.rng.Intn(2) == 0 {
			g.emit(genLine{text: "", what: "empty"})
		} else {
			g.emit(genLine{text: strings.Repeat(" \t"[g.rng.Intn(2):][:1], 1+g.rng.Intn(5)), corrupt: true, what: "blank"})
		}
	default:
		g.emit(genLine{text: g.event(g.next), hasSeq: true, seq: g.next, what: "event"})
		g.next++
	}
}

// generate writes a random journal under root and returns it.
func generate(rng *rand.Rand, cfg genConfig, root string, file int) (*genFile, error) {
	g := &gen{rng: rng, cfg: cfg, file: file, highest: -1}
	if rng.Float64() < cfg.lostHead {
		g.next = 1 + int64(rng.Intn(4))
	}
	target := 1 + rng.Intn(cfg.maxLines)
	for len(g.out) < target {
		g.step()
	}
	g.out = g.out[:target]
	f := &genFile{crlf: rng.Float64() < cfg.crlf}
	f.path = filepath.Join(root, propJob, fmt.Sprintf("session_20261121T1000%02dZ_pod-%d.jsonl", file%60, file))
	eol := "\n"
	if f.crlf {
		eol = "\r\n"
	}
	var b bytes.Buffer
	for _, l := range g.out {
		l.offset = int64(b.Len())
		b.WriteString(l.text)
		b.WriteString(eol)
		if l.text != "" {
			f.lines = append(f.lines, l)
		}
	}
	if rng.Float64() < cfg.partial {
		b.WriteString(`{"type":"ERROR","timestamp":"2026-11-21T11:00:00.000Z","se`) // a crash mid-write: never emitted
	}
	f.data = b.Bytes()
	if err := os.MkdirAll(filepath.Dir(f.path), 0o755); err != nil {
		return nil, err
	}
	return f, os.WriteFile(f.path, f.data, 0o644)
}

// want is what one line must carry in Loki.
type want struct {
	annotations string // the annotations metadata, kinds in the product's order
	seqGap      string
	seqRepeat   string
	seqRegr     string
}

// truth computes every line's annotations from the generator's records:
// continuity against the highest seq before the line, corrupt lines change
// nothing, the first sequenced line should be seq 0.
func truth(f *genFile) map[int64]want {
	out := make(map[int64]want, len(f.lines))
	highest := int64(-1)
	for _, l := range f.lines {
		var w want
		var kinds []string
		if l.corrupt {
			kinds = append(kinds, "corrupt")
		}
		if l.hasSeq {
			switch {
			case l.seq > highest+1:
				kinds = append(kinds, "seq_gap")
				w.seqGap = strconv.FormatInt(highest+1, 10)
				if l.seq-1 != highest+1 {
					w.seqGap += "-" + strconv.FormatInt(l.seq-1, 10)
				}
			case l.seq == highest+1:
			case l.seq == highest:
				kinds = append(kinds, "seq_repeat")
				w.seqRepeat = "after " + strconv.FormatInt(highest, 10)
			default:
				kinds = append(kinds, "seq_regression")
				w.seqRegr = "after " + strconv.FormatInt(highest, 10)
			}
			highest = max(highest, l.seq)
		}
		if l.corrupt {
			kinds = append(kinds, "timestamp_fallback") // a corrupt line has no readable timestamp
		}
		w.annotations = strings.Join(kinds, ",")
		out[l.offset] = w
	}
	return out
}

// records returns the file's lines as Fluent Bit's tail emits them, and
// checks that they are the generator's lines.
func (f *genFile) records() ([]chunk.Record, error) {
	recs := tailRecords(f.path, f.data, testNow)
	if len(recs) != len(f.lines) {
		return nil, fmt.Errorf("tail emits %d records, the generator wrote %d lines", len(recs), len(f.lines))
	}
	for i, r := range recs {
		if r.Offset != f.lines[i].offset || string(r.Line) != f.lines[i].text {
			return nil, fmt.Errorf("record %d at %d is not the generator's line at %d", i, r.Offset, f.lines[i].offset)
		}
	}
	return recs, nil
}
