package finalize

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/journalship/journalship/audit"
	"github.com/journalship/journalship/chunk"
	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/internal/lokiproc"
	"github.com/journalship/journalship/internal/lokiquery"
	"github.com/journalship/journalship/ledger"
	"github.com/journalship/journalship/metrics"
	"github.com/journalship/journalship/output"
	"github.com/journalship/journalship/pipeline"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	job  = "01956a3b-7c4d-7e8f-9a1b-2c3d4e5f6789"
	sess = "01956a3b-8000-7000-8000-000000000001"
)

// base is the time the test journals start at.
var base = time.Now().Add(-time.Hour).UTC().Truncate(time.Millisecond)

func ev(typ string, seq int, extra string) string {
	if extra != "" {
		extra = "," + extra
	}
	ts := base.Add(time.Duration(seq) * time.Second).Format("2006-01-02T15:04:05.000Z")
	return `{"type":"` + typ + `","timestamp":"` + ts + `","job_id":"` + job + `","session_id":"` + sess + `","seq":` + string(rune('0'+seq)) + extra + `}`
}

var start = ev("SESSION_START", 0, `"buffer_schema_version":1,"agent_id":"01956a3b-9000-7000-8000-000000000002","pod_name":"p1"`)

type env struct {
	dl     string // the dead-letter file
	root   string
	loki   *lokiproc.Loki
	inst   *output.Instance
	ledger *ledger.Ledger
	now    time.Time
}

func newEnv(t *testing.T) *env {
	t.Helper()
	l := lokiproc.ForTest(t, lokiproc.Config{})
	dir := t.TempDir()
	settings := map[string]string{"loki_url": l.URL, "ledger_path": filepath.Join(dir, "ledger.db"),
		"dead_letter_path": filepath.Join(dir, "dl.jsonl"), "metrics_address": "off", "log_level": "error"}
	inst, err := output.NewInstance(func(k string) string { return settings[strings.ToLower(k)] })
	require.NoError(t, err)
	t.Cleanup(func() { inst.Close() })
	root := filepath.Join(dir, "sessions", job)
	require.NoError(t, os.MkdirAll(root, 0o755))
	return &env{dl: settings["dead_letter_path"], root: root, loki: l, inst: inst, ledger: inst.Ledger(), now: time.Now()}
}

func (e *env) write(t *testing.T, name string, content string, age time.Duration) string {
	t.Helper()
	p := filepath.Join(e.root, name)
	require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	mt := e.now.Add(-age)
	require.NoError(t, os.Chtimes(p, mt, mt))
	return p
}

func (e *env) finalizer(t *testing.T, ship Shipper, status format.GroupStatus, tune ...func(*Config)) *Finalizer {
	t.Helper()
	cfg := DefaultConfig()
	cfg.Now = func() time.Time { return e.now }
	for _, f := range tune {
		f(&cfg)
	}
	if ship == nil {
		ship = e.inst
	}
	f, err := New(cfg, ship, e.ledger, status)
	require.NoError(t, err)
	return f
}

func (e *env) entries(t *testing.T, want int) []lokiquery.Entry {
	t.Helper()
	q := &lokiquery.Client{URL: e.loki.URL}
	got, err := q.WaitFor(context.Background(), `{service_name="agent-sessions"}`, e.now.Add(-3*time.Hour), e.now.Add(time.Minute), want, 20*time.Second)
	require.NoError(t, err)
	return got
}

func TestCrashedSessionIsCutOffVisibly(t *testing.T) {
	e := newEnv(t)
	tail := `{"type":"TOOL_RESULT","inv` + "\x00\n"[:1]
	errLine := ev("ERROR", 1, "")
	path := e.write(t, "session_20261121T100000Z_p1.jsonl", start+"\n"+errLine+"\n"+tail, 20*time.Minute)
	f := e.finalizer(t, nil, nil)

	o, err := f.File(context.Background(), path)
	require.NoError(t, err)
	assert.True(t, o.Finished)
	assert.Equal(t, "partial last line unchanged for 10m0s", o.Why)
	assert.Equal(t, 2, o.ShippedLines)
	assert.Equal(t, len(tail), o.TailBytes)
	assert.Equal(t, audit.Warning, o.Level)

	got := e.entries(t, 4)
	require.Len(t, got, 4, "two lines, the cut-off marker, the file summary")
	var marker, summary lokiquery.Entry
	for _, en := range got {
		switch en.Stream["event_type"] {
		case "truncated_tail":
			marker = en
		case "file_summary":
			summary = en
		}
	}
	assert.Contains(t, summary.Line, `"journalship":"file_summary","level":"warning"`)
	assert.Contains(t, summary.Line, `"severity":"truncated_tail"`)
	assert.Equal(t, "file_summary,truncated_tail", summary.Metadata["annotations"])
	assert.Equal(t, sess, summary.Metadata["session_id"])
	assert.Equal(t, `{"journalship":"truncated_tail","file":"`+path+`","offset":`+itoa(len(start)+len(errLine)+2)+`,"bytes":`+itoa(len(tail))+`,"preview":"{\"type\":\"TOOL_RESULT\",\"inv\\x00","last_seq":1,"text":"{\"type\":\"TOOL_RESULT\",\"inv\u0000"}`, marker.Line,
		"the partial line whole, that it outlives the journal")
	assert.Equal(t, sess, marker.Metadata["session_id"], "in the session's audit trail")
	assert.Equal(t, job, marker.Metadata["job_id"])
	assert.Equal(t, "truncated_tail", marker.Metadata["annotations"])

	st, err := e.ledger.File(context.Background(), path)
	require.NoError(t, err)
	assert.True(t, st.Finished)

	// Idempotent: nothing more is shipped.
	o, err = f.File(context.Background(), path)
	require.NoError(t, err)
	assert.Equal(t, "already finished", o.Why)
	time.Sleep(500 * time.Millisecond)
	assert.Len(t, e.entries(t, 4), 4)
}

func itoa(n int) string {
	s := ""
	for ; n > 0; n /= 10 {
		s = string(rune('0'+n%10)) + s
	}
	return s
}

func TestRules(t *testing.T) {
	e := newEnv(t)
	ended := start + "\n" + ev("SESSION_END", 1, `"reason":"approval_pause","total_events":2`) + "\n"
	fresh := start + "\n" + `{"type":"LLM_RE`
	cases := []struct {
		name, file, content string
		age                 time.Duration
		status              format.GroupStatus
		finished            bool
		why                 string
	}{
		{"session ended", "session_20261121T090000Z_a.jsonl", ended, 0, nil, true, "session ended"},
		{"fresh partial tail", "session_20261121T100000Z_b.jsonl", fresh, time.Second, nil, false, "still being written"},
		{"open session, no tail", "session_20261121T100001Z_c.jsonl", start + "\n", time.Hour, nil, false, "still being written"},
		{"idle past IdleAfter", "session_20261121T100003Z_e.jsonl", start + "\n", 8 * 24 * time.Hour, nil, true, "unchanged for 168h0m0s"},
		{"job terminal", "session_20261121T100002Z_d.jsonl", start + "\n", 11 * time.Minute, fixedStatus(true), true, "job is terminal"},
		{"job terminal, file still written", "session_20261121T100004Z_f.jsonl", start + "\n", time.Second, fixedStatus(true), false, "still being written"},
		{"job terminal, torn line still growing", "session_20261121T100005Z_g.jsonl", fresh, time.Second, fixedStatus(true), false, "still being written"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := e.write(t, tc.file, tc.content, tc.age)
			defer os.Remove(path)
			f := e.finalizer(t, nil, tc.status, func(c *Config) { c.IdleAfter = 7 * 24 * time.Hour })
			o, err := f.File(context.Background(), path)
			require.NoError(t, err)
			assert.Equal(t, tc.finished, o.Finished)
			assert.Equal(t, tc.why, o.Why)
			st, err := e.ledger.File(context.Background(), path)
			require.NoError(t, err)
			assert.Equal(t, tc.finished, st.Finished)
		})
	}
}

type fixedStatus bool

func (s fixedStatus) Group(context.Context, string) (format.GroupState, error) {
	return format.GroupState{Terminal: bool(s)}, nil
}

func TestNewerSessionBesideFinishesTheOlder(t *testing.T) {
	e := newEnv(t)
	old := e.write(t, "session_20261121T100000Z_p1.jsonl", start+"\n"+`{"type":"TOOL_ST`, time.Second)
	f := e.finalizer(t, nil, nil)
	o, err := f.File(context.Background(), old)
	require.NoError(t, err)
	assert.False(t, o.Finished, "fresh tail, no newer file yet")
	e.write(t, "session_20261121T101500Z_p2.jsonl", start+"\n", 0)
	o, err = f.File(context.Background(), old)
	require.NoError(t, err)
	assert.False(t, o.Finished, "a newer session beside does not finish a file still being appended to")
	e.write(t, "session_20261121T100000Z_p1.jsonl", start+"\n"+`{"type":"TOOL_ST`, 11*time.Minute)
	o, err = f.File(context.Background(), old)
	require.NoError(t, err)
	assert.Equal(t, "a newer session file stands beside it", o.Why)
	assert.True(t, o.Finished, "once quiet for StaleAfter")
}

// appendingShipper is a writer still appending while the finalizer ships.
type appendingShipper struct {
	Shipper
	path string
}

func (a appendingShipper) Ship(ctx context.Context, recs []chunk.Record, tag string) (pipeline.Result, error) {
	fh, err := os.OpenFile(a.path, os.O_APPEND|os.O_WRONLY, 0)
	if err == nil {
		fh.WriteString("more\n")
		fh.Close()
	}
	return a.Shipper.Ship(ctx, recs, tag)
}

func TestFileChangingMeanwhileIsNotMarked(t *testing.T) {
	e := newEnv(t)
	path := e.write(t, "session_20261121T100000Z_p1.jsonl", start+"\n"+`{"type":"TOOL_ST`, time.Hour)
	o, err := e.finalizer(t, appendingShipper{Shipper: e.inst, path: path}, nil).File(context.Background(), path)
	require.NoError(t, err)
	assert.False(t, o.Finished)
	assert.Equal(t, "changed while being finalized", o.Why)
	st, err := e.ledger.File(context.Background(), path)
	require.NoError(t, err)
	assert.False(t, st.Finished)
}

func TestBlankLinesAndCRLFAreAccountedFor(t *testing.T) {
	e := newEnv(t)
	path := e.write(t, "session_20261121T100000Z_p1.jsonl", start+"\r\n\r\n\n"+ev("ERROR", 1, "")+"\r\n"+ev("SESSION_END", 2, `"reason":"completed","total_events":3`)+"\r\n", 0)
	o, err := e.finalizer(t, nil, nil).File(context.Background(), path)
	require.NoError(t, err)
	assert.True(t, o.Finished, o.Why)
	st, err := e.ledger.File(context.Background(), path)
	require.NoError(t, err)
	info, _ := os.Stat(path)
	assert.Equal(t, info.Size(), st.Watermark, "every byte accounted for")
}

func TestConfig(t *testing.T) {
	assert.NoError(t, DefaultConfig().Validate())
	c := DefaultConfig()
	c.PreviewChars = 1
	assert.Error(t, c.Validate())
	_, err := New(DefaultConfig(), nil, nil, nil)
	assert.Error(t, err)
}

func TestSizeAlertsAreAnnotatedAndCounted(t *testing.T) {
	e := newEnv(t)
	path := e.write(t, "session_20261121T100000Z_p1.jsonl", start+"\n"+ev("SESSION_END", 1, `"reason":"completed","total_events":2`)+"\n", 0)
	cfg := DefaultConfig()
	cfg.Audit.FileSizeAlert, cfg.Audit.JobDirSizeAlert = 100, 200
	cfg.Metrics = metrics.New()
	f, err := New(cfg, e.inst, e.ledger, nil)
	require.NoError(t, err)
	n, err := testutil.GatherAndCount(cfg.Metrics.Registry, "journalship_files_finished_total")
	require.NoError(t, err)
	assert.Equal(t, 12, n, "3 levels × 4 severities exist at 0 before the first file")
	o, err := f.File(context.Background(), path)
	require.NoError(t, err)
	require.True(t, o.Finished)
	var summary lokiquery.Entry
	for _, en := range e.entries(t, 3) {
		if en.Stream["event_type"] == "file_summary" {
			summary = en
		}
	}
	assert.Equal(t, "file_summary,size_alert,job_dir_size_alert", summary.Metadata["annotations"])
	assert.Equal(t, 1.0, testutil.ToFloat64(cfg.Metrics.FileSizeAlerts))
	assert.Equal(t, 1.0, testutil.ToFloat64(cfg.Metrics.JobDirSizeAlerts))
	assert.Equal(t, 1.0, testutil.ToFloat64(cfg.Metrics.FilesFinished.WithLabelValues("warning", "")))
}

// TestTornTailPreviewHoldsNoPartOfASecret: the preview of a torn tail is
// its first 200 characters. A secret the tail holds whole but the cut
// falls inside was not found in the preview (too short for its rule) and
// its first characters left the node in the cut-off marker. The tail is
// redacted before its preview is taken.
func TestTornTailPreviewHoldsNoPartOfASecret(t *testing.T) {
	e := newEnv(t)
	token := "ghp_" + "R8zQ2vLm9KpX4tWb7NcY1dFh6JsU3aEo5GiT"
	head := `{"type":"TOOL_RESULT","timestamp":"` + base.Format("2006-01-02T15:04:05.000Z") + `","output":"export GITHUB_TOKEN=`
	head += strings.Repeat("x", 185-len(head)) + " " // the token starts 186 characters in
	tail := head + token + ` and then the writer died`
	path := e.write(t, "session_20261121T100000Z_p1.jsonl", start+"\n"+tail, 20*time.Minute)
	f := e.finalizer(t, nil, nil)
	o, err := f.File(context.Background(), path)
	require.NoError(t, err)
	require.True(t, o.Finished)
	assert.Equal(t, len(tail), o.TailBytes, "the tail's bytes are the file's")

	var marker lokiquery.Entry
	for _, en := range e.entries(t, 3) {
		if en.Stream["event_type"] == "truncated_tail" {
			marker = en
		}
	}
	require.NotEmpty(t, marker.Line)
	assert.NotContains(t, marker.Line, token[:12], "no part of the secret in the preview: %s", marker.Line)
	assert.Contains(t, marker.Line, "REDACTED-SEC", "the replacement, cut in its turn")
}

// TestFileSummaryPreviewsHoldNoPartOfASecret: the file summary (the
// audit report) previews the torn tail and the first corrupt (and
// schema-invalid) lines, 200 characters each; a secret the cut falls
// inside must not leave its start there either.
func TestFileSummaryPreviewsHoldNoPartOfASecret(t *testing.T) {
	e := newEnv(t)
	token := "ghp_" + "R8zQ2vLm9KpX4tWb7NcY1dFh6JsU3aEo5GiT"
	cut := func(head string) string { return head + strings.Repeat("x", 185-len(head)) + " " + token + ` and more` }
	corrupt := cut(`{"type":"TOOL_RESULT" not json at all `)
	tail := cut(`{"type":"TOOL_RESULT","output":"`)
	path := e.write(t, "session_20261121T100000Z_p1.jsonl", start+"\n"+corrupt+"\n"+ev("ERROR", 2, "")+"\n"+tail, 20*time.Minute)
	f := e.finalizer(t, nil, nil)
	o, err := f.File(context.Background(), path)
	require.NoError(t, err)
	require.True(t, o.Finished)

	var summary lokiquery.Entry
	for _, en := range e.entries(t, 5) {
		if en.Stream["event_type"] == "file_summary" {
			summary = en
		}
	}
	require.NotEmpty(t, summary.Line)
	assert.NotContains(t, summary.Line, token[:12], "no part of the secret in the summary: %s", summary.Line)
}
