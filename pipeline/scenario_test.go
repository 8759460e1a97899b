package pipeline

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	sessA = "01956a3b-8000-7000-8000-000000000001"
	agent = "01956a3b-9000-7000-8000-000000000002"
)

// shipFile writes lines to rel under a temp root and ships them; it returns
// each line's metadata in file order.
func shipFile(t *testing.T, rel string, lines ...string) []map[string]string {
	t.Helper()
	root := t.TempDir()
	path := filepath.Join(root, rel)
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	data := strings.Join(lines, "\n") + "\n"
	require.NoError(t, os.WriteFile(path, []byte(data), 0o644))
	e := newEnv(t, nil)
	_, err := e.pipe.Ship(context.Background(), tailRecords(path, []byte(data), testNow), "t")
	require.NoError(t, err)
	es := e.cap.entries()
	out := make([]map[string]string, len(es))
	byOffset := map[string]map[string]string{}
	for _, en := range es {
		byOffset[en.md["byte_offset"]] = en.md
	}
	off := 0
	for i, l := range lines {
		out[i] = byOffset[itoa(off)]
		off += len(l) + 1
	}
	return out
}

func itoa(n int) string { return fmtInt(n) }

func fmtInt(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

func ev(typ string, seq int, extra string) string {
	if extra != "" {
		extra = "," + extra
	}
	return `{"type":"` + typ + `","timestamp":"2026-11-21T10:00:0` + fmtInt(seq%10) + `Z","job_id":"` + goldenJob + `","session_id":"` + sessA + `","seq":` + fmtInt(seq) + extra + `}`
}

func TestUnknownSchemaVersionIsJudgedBestEffort(t *testing.T) {
	md := shipFile(t, goldenJob+"/session_20261121T100000Z_pod-1.jsonl",
		ev("SESSION_START", 0, `"buffer_schema_version":2,"agent_id":"`+agent+`","pod_name":"pod-1"`),
		// v2 renamed finish_reason values and dropped step_index: fine
		ev("LLM_RESPONSE", 1, `"finish_reason":"refusal","prompt_tokens":5,"completion_tokens":1`),
	)
	for i, m := range md {
		assert.Equal(t, "valid", m["integrity"], "line %d", i)
		assert.Contains(t, m["annotations"], "best_effort", "line %d", i)
		assert.Equal(t, agent, m["agent_id"], "line %d", i)
	}
}

func TestPathAndJobChecks(t *testing.T) {
	md := shipFile(t, "scratch/run.jsonl", ev("SESSION_START", 0, `"buffer_schema_version":1,"agent_id":"`+agent+`","pod_name":"p"`))
	assert.Contains(t, md[0]["annotations"], "path_mismatch")
	assert.Equal(t, "file name does not start with session_", md[0]["path_problem"])
	assert.Equal(t, goldenJob, md[0]["job_id"], "the line's own job_id")

	other := "01956a3b-7c4d-7e8f-9a1b-000000000000"
	md = shipFile(t, other+"/session_20261121T100000Z_pod-9.jsonl", ev("SESSION_START", 0, `"buffer_schema_version":1,"agent_id":"`+agent+`","pod_name":"p"`))
	assert.Contains(t, md[0]["annotations"], "job_id_mismatch")
	assert.Equal(t, "pod-9", md[0]["pod"], "pod from the path")
}

func TestLostHeadIsAGapFromZero(t *testing.T) {
	md := shipFile(t, goldenJob+"/session_20261121T100000Z_pod-1.jsonl", ev("ERROR", 3, ""), ev("ERROR", 4, ""))
	assert.Equal(t, "0-2", md[0]["seq_gap"], "SESSION_START and what followed were lost")
	assert.Empty(t, md[1]["annotations"])
}

func TestResponseWithoutItsRequest(t *testing.T) {
	md := shipFile(t, goldenJob+"/session_20261121T100000Z_pod-1.jsonl",
		ev("SESSION_START", 0, `"buffer_schema_version":1,"agent_id":"`+agent+`","pod_name":"p"`),
		ev("LLM_RESPONSE", 1, `"step_index":4,"prompt_tokens":5,"completion_tokens":1,"finish_reason":"end_turn"`),
	)
	assert.Contains(t, md[1]["annotations"], "model_unknown")
	assert.Empty(t, md[1]["model"], "never guessed")
}

func TestSyntheticEntriesFollowTheOldEntryPolicy(t *testing.T) {
	e := newEnv(t, nil)
	old := testNow.Add(-30 * 24 * time.Hour)
	require.NoError(t, e.pipe.ShipSynthetic(context.Background(), []Synthetic{{
		Path: "/d/" + goldenJob + "/session_20261121T100000Z_p.jsonl", Kind: "truncated_tail", Time: old,
		Line: []byte(`{"journalship":"truncated_tail"}`), Annotations: []string{"truncated_tail"}}}))
	es := e.cap.entries()
	require.Len(t, es, 1)
	assert.Equal(t, testNow, es[0].ts.UTC(), "stamped now")
	assert.Equal(t, old.Format(time.RFC3339Nano), es[0].md["original_timestamp"])
	assert.Equal(t, "truncated_tail,timestamp_rewritten", es[0].md["annotations"])

	e = newEnv(t, func(c *Config) { c.OldEntries = DeadLetter })
	require.NoError(t, e.pipe.ShipSynthetic(context.Background(), []Synthetic{{Path: "/x.jsonl", Kind: "file_summary", Time: old, Line: []byte(`{}`)}}))
	assert.Empty(t, e.cap.entries())
	assert.Contains(t, e.deadLetters(t)[0], "outside Loki's accepted window")
}

// TestSyntheticEntriesKeepTheFilesSession: the finalizer's marker of an
// OrbitMesh log, whose lines state no session start, carries the session
// its file name gives, so it shows in that session's audit trail.
func TestSyntheticEntriesKeepTheFilesSession(t *testing.T) {
	e := newEnv(t, nil)
	require.NoError(t, e.pipe.ShipSynthetic(context.Background(), []Synthetic{{
		Path: "/data/orbitmesh/sessions/ses_5f0a.messages.jsonl", Kind: "truncated_tail", Time: testNow,
		Line: []byte(`{"journalship":"truncated_tail"}`), Annotations: []string{"truncated_tail"}}}))
	es := e.cap.entries()
	require.Len(t, es, 1)
	assert.Equal(t, "ses_5f0a", es[0].md["session_id"])
	assert.Contains(t, es[0].labels, `format="orbitmesh"`)
}

// TestTornFirstLineTakesTheNamesStart: a file's first line without a
// readable time has no line before it; it takes the start its path states
// (Cortex Plane's session_<ts>) rather than the time it was read, so it
// stays first on the session's timeline.
func TestTornFirstLineTakesTheNamesStart(t *testing.T) {
	e := newEnv(t, nil)
	path := "/d/" + goldenJob + "/session_20261121T100000Z_p.jsonl"
	data := []byte(`{"type":"SESSION_ST` + "\n")
	_, err := e.pipe.Ship(context.Background(), tailRecords(path, data, testNow), "t")
	require.NoError(t, err)
	es := e.cap.entries()
	require.Len(t, es, 1)
	assert.Equal(t, time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC), es[0].ts.UTC())
	assert.Contains(t, es[0].md["annotations"], "timestamp_fallback")
}

// TestTornFirstLineOfADatedFile: a path that states a date alone
// (Codelia's sessions/YYYY/MM/DD/) does not place a torn first line at
// midnight: it takes the time it was read.
func TestTornFirstLineOfADatedFile(t *testing.T) {
	e := newEnv(t, nil)
	path := "/data/codelia/sessions/2026/11/21/8f1d7b7a-7e8f-4e0f-9a7c-1c5d0e6b2b7a.jsonl"
	_, err := e.pipe.Ship(context.Background(), tailRecords(path, []byte(`{"type":"head`+"\n"), testNow), "t")
	require.NoError(t, err)
	es := e.cap.entries()
	require.Len(t, es, 1)
	assert.Equal(t, testNow, es[0].ts.UTC())
}
