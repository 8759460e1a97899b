package output

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang/snappy"
	"github.com/grafana/loki/pkg/push"
	"github.com/journalship/journalship/chunk"
	"github.com/journalship/journalship/journalfile"
	"github.com/journalship/journalship/ledger"
)

// pushCounter stands in for Loki (this fuzzes input handling, not
// delivery): it decodes every push and answers 204.
type pushCounter struct {
	mu    sync.Mutex
	lines []string
	meta  []map[string]string // per line, its structured metadata
	bad   []string            // requests that were not a valid snappy protobuf push
}

func (p *pushCounter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var pr push.PushRequest
	raw, err := snappy.Decode(nil, body)
	if err == nil {
		err = pr.Unmarshal(raw)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if err != nil {
		p.bad = append(p.bad, err.Error())
		w.WriteHeader(http.StatusNoContent)
		return
	}
	for _, s := range pr.Streams {
		for _, e := range s.Entries {
			p.lines = append(p.lines, e.Line)
			md := map[string]string{}
			for _, m := range e.StructuredMetadata {
				md[m.Name] = m.Value
			}
			p.meta = append(p.meta, md)
		}
	}
	w.WriteHeader(http.StatusNoContent)
}

func (p *pushCounter) take() (lines, bad []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	lines, bad, p.lines, p.bad = p.lines, p.bad, nil, nil
	return lines, bad
}

// fuzzSeeds adds journal-shaped chunks whose file exists, so that flushes
// also exercise the look-behind and the session lookup on disk.
func fuzzSeeds(f *testing.F, dir string) {
	path := filepath.Join(dir, badJob, "session_20261121T100000Z_fuzz.jsonl")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		f.Fatal(err)
	}
	at := time.Now().UTC().Add(-time.Minute)
	data := lines(badStart(at), badLine("ERROR", at, "1", ""), []byte(`{"type":"ERROR","ti{"x"`), badLine("ERROR", at, "5", ""))
	if err := os.WriteFile(path, data, 0o644); err != nil {
		f.Fatal(err)
	}
	var evs []chunk.Event
	for _, r := range tailOf(data) {
		evs = append(evs, chunk.TailEvent(chunk.DefaultConfig(), at, path, r.off, r.line))
	}
	f.Add(chunk.AppendChunk(nil, chunk.FormatV2, evs...))
	f.Add(chunk.AppendChunk(nil, chunk.FormatV1, evs[2:]...))
	f.Add(chunk.AppendChunk(nil, chunk.FormatV2Direct, evs[1:]...))
}

// flushDeadline bounds one Flush: the stand-in answers at once, so a
// Flush that takes longer is hung (the watchdog's panic makes the fuzzer
// keep the input).
const flushDeadline = 15 * time.Second

// FuzzFlush feeds arbitrary bytes to Instance.Flush as a Fluent Bit chunk.
// Seeds: testdata/fuzz/FuzzFlush (copies of chunk/testdata/*.msgpack) and
// fuzzSeeds. Properties: Flush never panics, never hangs (flushDeadline)
// and returns OK or Retry; a Retry is transient (the same chunk flushed
// again is not Retry again, since nothing here is failing); after OK every
// record the chunk decodes to is pushed or dead-lettered (as a multiset of
// lines), and an undecodable remainder is dead-lettered once.
func FuzzFlush(f *testing.F) {
	dir := f.TempDir()
	fuzzSeeds(f, dir)
	pc := &pushCounter{}
	srv := httptest.NewServer(pc)
	f.Cleanup(srv.Close)
	dlPath := filepath.Join(dir, "dl.jsonl")
	inst, err := NewInstance(getter(map[string]string{
		"Loki_URL": srv.URL, "Ledger_Path": filepath.Join(dir, "ledger.db"), "Dead_Letter_Path": dlPath,
		"Metrics_Address": "off", "Node_Name": "node-fuzz", "Log_Level": "error", "Timeout": "5s",
	}))
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { inst.Close() })
	dec, err := chunk.NewDecoder(chunk.DefaultConfig())
	if err != nil {
		f.Fatal(err)
	}

	f.Fuzz(func(t *testing.T, data []byte) {
		var recs []chunk.Record
		derr := dec.Decode(data, func(r *chunk.Record) error {
			recs = append(recs, *r)
			return nil
		})
		want := notInLedger(inst, recs) // a line the ledger holds is not sent again
		before := fileSize(t, dlPath)
		watchdog := time.AfterFunc(flushDeadline, func() {
			buf := make([]byte, 1<<20)
			panic(fmt.Sprintf("Flush of %q has not returned after %v:\n%s", data, flushDeadline, buf[:runtime.Stack(buf, true)]))
		})
		code := inst.Flush(data, "fuzz")
		watchdog.Stop()
		pushed, bad := pc.take()
		if code != OK && code != Retry {
			t.Fatalf("Flush returned %d, want OK (%d) or Retry (%d)", code, OK, Retry)
		}
		if len(bad) > 0 {
			t.Fatalf("the plugin sent requests that are not pushes: %v", bad)
		}
		if code == Retry {
			// Nothing here fails for a while (Loki answers 204, the disk
			// works): a Retry is acceptable only if it is transient.
			// Fluent Bit (Retry_Limit no_limits) would offer a chunk that
			// always gets Retry forever, and its lines would never be
			// pushed nor dead-lettered.
			if again := inst.Flush(data, "fuzz"); again == Retry {
				t.Fatalf("Flush returns Retry twice with a healthy Loki and disk: a poison chunk retried forever (%d records)", len(want))
			}
			pc.take()
			return
		}
		dead, undecodable := newDeadLetters(t, dlPath, before)
		if (derr != nil) != (undecodable == 1) || undecodable > 1 {
			t.Fatalf("decode error %v, but %d undecodable-chunk dead letters", derr, undecodable)
		}
		got := append(pushed, dead...)
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("%d records decoded, %d lines pushed, %d dead-lettered: every decoded line must be pushed or dead-lettered exactly once\nwant %q\ngot  %q",
				len(want), len(pushed), len(dead), want, got)
		}
	})
}

func fileSize(t *testing.T, path string) int64 {
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Size()
}

// newDeadLetters reads the dead letters written after offset from: the
// records' lines, and how many were the undecodable rest of a chunk.
func newDeadLetters(t *testing.T, path string, from int64) (lines []string, undecodable int) {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(strings.TrimSpace(string(b[from:])), "\n") {
		if l == "" {
			continue
		}
		var d struct {
			Line       string `json:"line"`
			LineBase64 string `json:"line_base64"`
			Reason     string `json:"reason"`
			Stage      string `json:"stage"`
		}
		if err := json.Unmarshal([]byte(l), &d); err != nil {
			t.Fatalf("dead letter %q is not JSON: %v", l, err)
		}
		if d.Reason == "" || d.Stage == "" {
			t.Fatalf("dead letter without reason or stage: %s", l)
		}
		if strings.HasPrefix(d.Reason, "undecodable Fluent Bit chunk") {
			undecodable++
			continue
		}
		if d.LineBase64 != "" {
			raw, err := base64.StdEncoding.DecodeString(d.LineBase64)
			if err != nil {
				t.Fatalf("dead letter line_base64: %v", err)
			}
			d.Line = string(raw)
		}
		lines = append(lines, d.Line)
	}
	return lines, undecodable
}

// notInLedger returns the lines of recs the pipeline must send: all but
// those whose bytes the ledger holds for the file their path names now,
// as the pipeline's claim judges it (per file: the ledger's identity is
// the file's, and the file holds the file's first and last records).
func notInLedger(inst *Instance, recs []chunk.Record) []string {
	var want []string
	for k := range recs {
		if !inLedger(inst, recs, &recs[k]) {
			want = append(want, string(recs[k].Line))
		}
	}
	return want
}

func inLedger(inst *Instance, recs []chunk.Record, r *chunk.Record) bool {
	if !r.HasOffset || len(r.Path) == 0 {
		return false
	}
	path := string(r.Path)
	st, err := inst.Ledger().File(context.Background(), path)
	if err != nil || len(st.Ranges) == 0 {
		return false
	}
	first, last := -1, -1
	for i := range recs {
		if recs[i].HasOffset && string(recs[i].Path) == path {
			if first < 0 || recs[i].Offset < recs[first].Offset {
				first = i
			}
			if last < 0 || recs[i].Offset > recs[last].Offset {
				last = i
			}
		}
	}
	for _, i := range []int{first, last} {
		id, err := journalfile.Holds(path, recs[i].Offset, recs[i].Line, 0)
		if err != nil || !journalfile.Same(st.Identity, id) {
			return false
		}
	}
	return ledger.Covered(st.Ranges, r.Offset, r.Offset+int64(len(r.Line))+1)
}
