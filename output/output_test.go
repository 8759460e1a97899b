package output

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"math/rand"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/journalship/journalship/chunk"
	"github.com/journalship/journalship/internal/lokiproc"
	"github.com/journalship/journalship/internal/lokiquery"
	"github.com/journalship/journalship/internal/sample"
	"github.com/journalship/journalship/internal/sample/cortex"
	"github.com/journalship/journalship/internal/verify"
	"github.com/journalship/journalship/ledger"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type fixture struct {
	root, dir string
	corpus    *sample.Corpus
	settings  map[string]string
}

func newFixture(t *testing.T, lokiURL string, seed int64) *fixture {
	t.Helper()
	cfg := cortex.DefaultConfig()
	cfg.Seed, cfg.Jobs = seed, 5
	c, err := cortex.Generate(cfg)
	require.NoError(t, err)
	dir := t.TempDir()
	root := filepath.Join(dir, "sessions")
	require.NoError(t, c.WriteTo(root))
	return &fixture{root: root, dir: dir, corpus: c, settings: map[string]string{
		"Loki_URL": lokiURL, "Ledger_Path": filepath.Join(dir, "ledger.db"),
		"Dead_Letter_Path": filepath.Join(dir, "dl.jsonl"), "Metrics_Address": "127.0.0.1:0",
		"Node_Name": "node-e2e", "Log_Level": "error",
	}}
}

// chunks cuts every file's lines into tail chunks of 1 to 8 events, in the
// three layouts Fluent Bit versions produce, shuffled.
func (f *fixture) chunks(rng *rand.Rand) [][]byte {
	formats := []chunk.Format{chunk.FormatV2, chunk.FormatV1, chunk.FormatV2Direct}
	var out [][]byte
	for _, file := range f.corpus.Files {
		path := filepath.Join(f.root, file.Rel)
		for i := 0; i < len(file.Lines); {
			n := 1 + rng.Intn(8)
			var evs []chunk.Event
			for _, l := range file.Lines[i:min(i+n, len(file.Lines))] {
				evs = append(evs, chunk.TailEvent(chunk.DefaultConfig(), time.Now(), path, l.Offset, []byte(l.Text)))
			}
			out = append(out, chunk.AppendChunk(nil, formats[rng.Intn(len(formats))], evs...))
			i += n
		}
	}
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

func (f *fixture) instance(t *testing.T) *Instance {
	t.Helper()
	inst, err := NewInstance(getter(f.settings))
	require.NoError(t, err)
	t.Cleanup(func() { inst.Close() })
	return inst
}

func readDeadLetters(t *testing.T, path string) []map[string]any {
	t.Helper()
	fh, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil
	}
	require.NoError(t, err)
	defer fh.Close()
	var out []map[string]any
	s := bufio.NewScanner(fh)
	s.Buffer(nil, 1<<24)
	for s.Scan() {
		var m map[string]any
		require.NoError(t, json.Unmarshal(s.Bytes(), &m))
		out = append(out, m)
	}
	return out
}

func TestFlushShipsEveryLineToRealLoki(t *testing.T) {
	loki := lokiproc.ForTest(t, lokiproc.Config{})
	f := newFixture(t, loki.URL, 7)
	inst := f.instance(t)
	for _, c := range f.chunks(rand.New(rand.NewSource(7))) {
		require.Equal(t, OK, inst.Flush(c, "sessions.x"))
	}

	verify.Landed(t, loki.URL, f.corpus, f.root, "node-e2e")
	assert.Empty(t, readDeadLetters(t, f.settings["Dead_Letter_Path"]))
	assertLedgerCovers(t, f)
}

func assertLedgerCovers(t *testing.T, f *fixture) {
	t.Helper()
	l, err := ledger.Open(ledger.Config{Path: f.settings["Ledger_Path"]})
	require.NoError(t, err)
	defer l.Close()
	for _, file := range f.corpus.Files {
		st, err := l.File(context.Background(), filepath.Join(f.root, file.Rel))
		require.NoError(t, err)
		end := int64(len(file.Data) - len(file.PartialTail))
		assert.Equal(t, end, st.Watermark, "%s: every complete line is recorded as shipped", file.Rel)
	}
}

func TestFlushRetriesWhileLokiIsDown(t *testing.T) {
	f := newFixture(t, "http://127.0.0.1:1", 3)
	f.settings["Timeout"] = "1s"
	inst := f.instance(t)
	c := f.chunks(rand.New(rand.NewSource(1)))[0]
	assert.Equal(t, Retry, inst.Flush(c, "t"))
	assert.Empty(t, readDeadLetters(t, f.settings["Dead_Letter_Path"]), "nothing dead-lettered for an outage")
	l, err := ledger.Open(ledger.Config{Path: f.settings["Ledger_Path"]})
	require.NoError(t, err)
	defer l.Close()
	files, err := l.Files(context.Background())
	require.NoError(t, err)
	assert.Empty(t, files, "nothing recorded as shipped")
}

func TestLokiRefusalsAreDeadLettered(t *testing.T) {
	loki := lokiproc.ForTest(t, lokiproc.Config{Limits: map[string]any{"max_line_size": "1KB"}})
	f := newFixture(t, loki.URL, 5)
	f.settings["Max_Line_Bytes"] = "1M" // let Loki be the one refusing
	inst := f.instance(t)
	var file sample.File
	for _, c := range f.corpus.Files {
		for _, l := range c.Lines {
			if len(l.Text) > 1024 && file.Rel == "" {
				file = c
			}
		}
	}
	path := filepath.Join(f.root, file.Rel)
	var evs []chunk.Event
	long, short := 0, 0
	for _, l := range file.Lines {
		evs = append(evs, chunk.TailEvent(chunk.DefaultConfig(), time.Now(), path, l.Offset, []byte(l.Text)))
		if len(l.Text) > 1024 {
			long++
		} else {
			short++
		}
	}
	require.Positive(t, long, "the fixture has lines over 1 KB")
	require.Equal(t, OK, inst.Flush(chunk.AppendChunk(nil, chunk.FormatV2, evs...), "t"))

	dl := readDeadLetters(t, f.settings["Dead_Letter_Path"])
	require.Len(t, dl, long)
	for _, d := range dl {
		assert.Contains(t, d["reason"], "max entry size")
		assert.Equal(t, "loki", d["stage"])
		assert.Equal(t, path, d["file"])
	}
	q := &lokiquery.Client{URL: loki.URL}
	got, err := q.WaitFor(context.Background(), `{service_name="agent-sessions"}`, time.Now().Add(-4*time.Hour), time.Now().Add(time.Minute), short, 30*time.Second)
	require.NoError(t, err)
	assert.Len(t, got, short, "Loki kept the valid entries of the refused request")
}

func TestBrokenChunkShipsWhatPrecedesTheBreak(t *testing.T) {
	loki := lokiproc.ForTest(t, lokiproc.Config{})
	f := newFixture(t, loki.URL, 9)
	inst := f.instance(t)
	file := f.corpus.Files[1]
	path := filepath.Join(f.root, file.Rel)
	var data []byte
	for _, l := range file.Lines[:3] {
		data = chunk.AppendEvent(data, chunk.TailEvent(chunk.DefaultConfig(), time.Now(), path, l.Offset, []byte(l.Text)), chunk.FormatV2)
	}
	good := len(data)
	data = chunk.AppendEvent(data, chunk.TailEvent(chunk.DefaultConfig(), time.Now(), path, file.Lines[3].Offset, []byte(file.Lines[3].Text)), chunk.FormatV2)
	data = data[:good+10] // cut inside the fourth event

	require.Equal(t, OK, inst.Flush(data, "t"))
	dl := readDeadLetters(t, f.settings["Dead_Letter_Path"])
	require.Len(t, dl, 1)
	assert.Equal(t, "decode", dl[0]["stage"])
	assert.Contains(t, dl[0]["reason"], "event 3")
	q := &lokiquery.Client{URL: loki.URL}
	got, err := q.WaitFor(context.Background(), `{service_name="agent-sessions"}`, time.Now().Add(-4*time.Hour), time.Now().Add(time.Minute), 3, 30*time.Second)
	require.NoError(t, err)
	assert.Len(t, got, 3)
}

func TestNewInstanceRefusesBadSettings(t *testing.T) {
	_, err := NewInstance(getter(map[string]string{"Loki_URL": "ftp://x", "Metrics_Address": "off", "Ledger_Path": "none",
		"Dead_Letter_Path": filepath.Join(t.TempDir(), "dl")}))
	require.Error(t, err)
	_, err = NewInstance(getter(map[string]string{"Label_Keys": "session_id"}))
	assert.ErrorContains(t, err, "session_id")
	for _, size := range []string{"17179869185G", "9223372036854775807", "2T", "1025G"} {
		_, err = NewInstance(getter(map[string]string{"Max_Line_Bytes": size, "Metrics_Address": "off", "Ledger_Path": "none",
			"Dead_Letter_Path": filepath.Join(t.TempDir(), "dl")}))
		assert.ErrorContains(t, err, "setting Max_Line_Bytes", "%s overflows or is absurd: refused, not wrapped", size)
	}
	for _, labels := range []string{"node=prod-1", "service_name=x,event_type=y"} {
		_, err = NewInstance(getter(map[string]string{"Labels": labels, "Metrics_Address": "off", "Ledger_Path": "none",
			"Dead_Letter_Path": filepath.Join(t.TempDir(), "dl")}))
		assert.ErrorContains(t, err, "is also a per-line label", "Labels %s: Loki would refuse every request", labels)
		assert.ErrorContains(t, err, "Labels or from Label_Keys")
	}
}

// TestStreamRefusedIsRetriedNotDeadLettered: a real Loki that refuses the
// stream itself (here a tenant limit of 5 characters per label value, and
// the node label is longer) gets the flush handed back for retry, with not one line in the
// dead-letter file or claimed in the ledger: the lines are not at fault.
func TestStreamRefusedIsRetriedNotDeadLettered(t *testing.T) {
	loki := lokiproc.ForTest(t, lokiproc.Config{Limits: map[string]any{"max_label_value_length": 5}})
	f := newFixture(t, loki.URL, 12)
	inst := f.instance(t)
	for _, c := range f.chunks(rand.New(rand.NewSource(12)))[:3] {
		assert.Equal(t, Retry, inst.Flush(c, "t"))
	}
	assert.Empty(t, readDeadLetters(t, f.settings["Dead_Letter_Path"]), "no line dead-lettered for a refused stream")
	files, err := inst.Ledger().Files(context.Background())
	require.NoError(t, err)
	assert.Empty(t, files, "nothing claimed as shipped")
}

// TestTooFarBehindIsNotLostBehindAnotherStream: Loki refuses an entry more
// than an hour older than its stream's newest. When such an entry shares a
// flush with another stream, Loki's ingester would report only the last
// stream's outcome; the plugin must still see the refusal and ship the line
// re-stamped (Old_Entries rewrite).
func TestTooFarBehindIsNotLostBehindAnotherStream(t *testing.T) {
	loki := lokiproc.ForTest(t, lokiproc.Config{})
	f := newFixture(t, loki.URL, 11)
	inst := f.instance(t)
	now := time.Now().UTC()
	ev := func(typ string, at time.Time, seq int) string {
		return `{"type":"` + typ + `","timestamp":"` + at.Format(time.RFC3339Nano) + `","job_id":"01956a3b-7c4d-7e8f-9a1b-2c3d4e5f6789","session_id":"01956a3b-8000-7000-8000-000000000001","seq":` + strconv.Itoa(seq) + `}`
	}
	recent, old, other := ev("ERROR", now, 0), ev("ERROR", now.Add(-2*time.Hour), 1), ev("STATE_TRANSITION", now, 2)
	path := filepath.Join(f.dir, "late.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(recent+"\n"+old+"\n"+other+"\n"), 0o644))
	tail := func(off int, line string) chunk.Event {
		return chunk.TailEvent(chunk.DefaultConfig(), now, path, int64(off), []byte(line))
	}
	require.Equal(t, OK, inst.Flush(chunk.AppendChunk(nil, chunk.FormatV2, tail(0, recent)), "t"))
	require.Equal(t, OK, inst.Flush(chunk.AppendChunk(nil, chunk.FormatV2, tail(len(recent)+1, old), tail(len(recent)+len(old)+2, other)), "t"))

	q := &lokiquery.Client{URL: loki.URL}
	got, err := q.WaitFor(context.Background(), `{service_name="agent-sessions"}`, now.Add(-3*time.Hour), time.Now().Add(time.Minute), 3, 30*time.Second)
	require.NoError(t, err)
	require.Len(t, got, 3, "the old line is not silently dropped")
	var late lokiquery.Entry
	for _, e := range got {
		if e.Line == old {
			late = e
		}
	}
	require.Equal(t, old, late.Line)
	assert.Equal(t, now.Add(-2*time.Hour).Format(time.RFC3339Nano), late.Metadata["original_timestamp"])
	assert.Contains(t, late.Metadata["annotations"], "timestamp_rewritten")
	assert.Empty(t, readDeadLetters(t, f.settings["Dead_Letter_Path"]))
}

// TestConcurrentFlushes flushes chunks of the same files from many
// goroutines at once, as Fluent Bit's workers do (run with -race).
func TestConcurrentFlushes(t *testing.T) {
	loki := lokiproc.ForTest(t, lokiproc.Config{})
	f := newFixture(t, loki.URL, 13)
	inst := f.instance(t)
	chunks := f.chunks(rand.New(rand.NewSource(13)))
	work := make(chan []byte)
	done := make(chan int)
	for range 4 {
		go func() {
			bad := 0
			for c := range work {
				if inst.Flush(c, "sessions.x") != OK {
					bad++
				}
			}
			done <- bad
		}()
	}
	for _, c := range chunks {
		work <- c
	}
	close(work)
	bad := 0
	for range 4 {
		bad += <-done
	}
	require.Zero(t, bad, "every flush OK")
	verify.Landed(t, loki.URL, f.corpus, f.root, "node-e2e")
}

// TestRecordsWithoutPathOrOffsetAreReported: tail configured without the
// Path_Key and Offset_Key the plugin reads sends records the plugin can
// ship but never account for: said once per instance, loudly, naming the
// settings.
func TestRecordsWithoutPathOrOffsetAreReported(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	defer srv.Close()
	dir := t.TempDir()
	inst, err := NewInstance(getter(map[string]string{"Loki_URL": srv.URL, "Ledger_Path": filepath.Join(dir, "l.db"),
		"Dead_Letter_Path": filepath.Join(dir, "dl.jsonl"), "Metrics_Address": "off"}))
	require.NoError(t, err)
	defer inst.Close()
	var logs bytes.Buffer
	inst.log.w = &logs
	wrong := chunk.DefaultConfig()
	wrong.PathKey, wrong.OffsetKey = "path", "pos" // tail's own names, not the plugin's
	line := []byte(`{"type":"ERROR","timestamp":"` + time.Now().UTC().Format(time.RFC3339) + `"}`)
	for range 2 {
		data := chunk.AppendChunk(nil, chunk.FormatV2, chunk.TailEvent(wrong, time.Now(), "/data/sessions/j/s.jsonl", 0, line))
		assert.Equal(t, OK, inst.Flush(data, "t"), "the line still ships")
	}
	assert.Equal(t, 1, strings.Count(logs.String(), `records carry no "file" key: set tail's Path_Key file`), logs.String())
	noOffset := chunk.AppendChunk(nil, chunk.FormatV2, chunk.Event{Time: time.Now(), Fields: []chunk.Field{
		{Key: "file", Value: "/data/sessions/j/s.jsonl"}, {Key: "log", Value: string(line)}}})
	assert.Equal(t, OK, inst.Flush(noOffset, "t"))
	assert.Equal(t, OK, inst.Flush(noOffset, "t"))
	assert.Equal(t, 1, strings.Count(logs.String(), `records carry no "offset" key: set tail's Offset_Key offset`), logs.String())
}
