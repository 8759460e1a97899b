package orbitmesh

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/journalship/journalship/internal/sample"
)

// testCorpora are the corpora the property tests check: the fixture,
// other seeds, no faults, many sessions, one session, one model.
func testCorpora(t *testing.T) map[string]*sample.Corpus {
	t.Helper()
	cfgs := map[string]Config{
		"fixture":   FixtureConfig(),
		"seed7":     testConfig(7, 9, true),
		"seed-3":    testConfig(-3, 12, true),
		"clean":     testConfig(7, 6, false),
		"clean-big": testConfig(11, 120, false),
		"one":       testConfig(5, 1, false),
		"one-model": {Seed: 2, Sessions: MinFaultSessions, Start: time.Date(2025, 12, 31, 23, 59, 59, 999_000_000, time.UTC), Models: []string{"m"}, Faults: true},
	}
	out := map[string]*sample.Corpus{}
	for name, cfg := range cfgs {
		c, err := Generate(cfg)
		require.NoError(t, err, name)
		out[name] = c
	}
	return out
}

func TestGenerateDeterministic(t *testing.T) {
	for _, cfg := range []Config{FixtureConfig(), testConfig(42, 9, false)} {
		a, err := Generate(cfg)
		require.NoError(t, err)
		b, err := Generate(cfg)
		require.NoError(t, err)
		assert.Equal(t, a, b)
		other := cfg
		other.Seed++
		c, err := Generate(other)
		require.NoError(t, err)
		assert.NotEqual(t, a.Files[0].Data, c.Files[0].Data, "another seed gives other bytes")
	}
}

func TestSessionsAreIndependent(t *testing.T) {
	// 9 and 10 sessions are both spaced 3 minutes apart, and each session
	// draws from its own stream: adding sessions leaves the first ones as
	// they were.
	small, err := Generate(testConfig(3, MinFaultSessions, true))
	require.NoError(t, err)
	big, err := Generate(testConfig(3, MinFaultSessions+1, true))
	require.NoError(t, err)
	require.Len(t, big.Files, MinFaultSessions+1)
	assert.Equal(t, small.Files, big.Files[:MinFaultSessions])
	assert.Equal(t, small.Side, big.Side[:len(small.Side)])
}

// TestLinesMatchData: the lines are the file's bytes, in order, each with
// its offset, and the partial tail is what follows the last newline.
func TestLinesMatchData(t *testing.T) {
	for name, c := range testCorpora(t) {
		for _, f := range c.Files {
			var b bytes.Buffer
			for _, l := range f.Lines {
				require.Equal(t, int64(b.Len()), l.Offset, "%s %s", name, f.Rel)
				require.NotContains(t, l.Text, "\n")
				b.WriteString(l.Text + "\n")
			}
			b.Write(f.PartialTail)
			require.Equal(t, string(f.Data), b.String(), "%s %s", name, f.Rel)
			assert.NotContains(t, string(f.PartialTail), "\n")
			assert.NotEmpty(t, f.Lines, "%s %s", name, f.Rel)
		}
	}
}

var (
	headRE    = regexp.MustCompile(`^\{"seq":(\d+),"ts":"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)","kind":"([a-z_.]+)"`)
	runtimeRE = regexp.MustCompile(`^\{"seq":(\d+),"timestamp":"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?Z)","projection":"(append|append_raw|append_output_delta)","kind":"(user|output|thought|tool_use|error|system|plan|metric)","contents":`)
)

// TestRecordShape: every readable line is a JSON object whose keys start
// with seq, ts, kind (the plan's records) or seq, timestamp, projection,
// kind, contents (the runtime's); its truth says its kind and seq;
// timestamps never decrease and stay within 75 minutes of Start.
func TestRecordShape(t *testing.T) {
	for name, c := range testCorpora(t) {
		var start time.Time
		for _, f := range c.Files {
			var last time.Time
			for _, l := range f.Lines {
				if l.Corrupt {
					assert.False(t, json.Valid([]byte(l.Text)), "%s: a corrupt line is no JSON: %s", name, l.Text)
					assert.Equal(t, int64(-1), l.Seq)
					assert.Empty(t, l.Type)
					assert.Empty(t, l.State)
					continue
				}
				require.True(t, json.Valid([]byte(l.Text)), "%s: %s", name, l.Text)
				m := headRE.FindStringSubmatch(l.Text)
				if isRuntime(f) {
					m = runtimeRE.FindStringSubmatch(l.Text)
					require.NotNil(t, m, "%s: key order: %s", name, l.Text)
					m[3] = strings.Replace(m[4], KindError, TypeRuntimeError, 1)
				}
				require.NotNil(t, m, "%s: key order: %s", name, l.Text)
				assert.Equal(t, m[1], itoa(l.Seq))
				assert.Equal(t, m[3], l.Type)
				ts, err := time.Parse(time.RFC3339Nano, m[2])
				require.NoError(t, err)
				assert.False(t, ts.Before(last), "%s %s: ts goes back at %s", name, f.Rel, l.Text)
				last = ts
				if start.IsZero() {
					start = ts
				}
				assert.True(t, ts.Before(start.Add(75*time.Minute)), "%s: %s is past Start + 75 min", name, ts)
				assert.Contains(t, []string{StatusIdle, StatusRunning, StatusWaiting, StatusInterruptedWaiting, StatusInterruptedStartup}, l.State)
				assert.Less(t, len(l.Text), 2048, "%s: a line stays under 2 KB", name)
			}
		}
	}
}

// TestFiles: each session is one sessions/<id>.messages.jsonl with its
// id; what the product cannot ship for the format is empty.
func TestFiles(t *testing.T) {
	nameRE := regexp.MustCompile(`^sessions/(sess_[0-9a-z]{12})\.messages\.jsonl$`)
	for name, c := range testCorpora(t) {
		ids := map[string]bool{}
		for _, f := range c.Files {
			m := nameRE.FindStringSubmatch(f.Rel)
			require.NotNil(t, m, f.Rel)
			assert.Equal(t, m[1], f.SessionID)
			assert.False(t, ids[f.SessionID], "%s: session ids are unique", name)
			ids[f.SessionID] = true
			assert.Equal(t, FormatName, f.Format)
			assert.Empty(t, f.RunID+f.JobID+f.Pod+f.AgentID, "nothing the product ships file-wide")
			assert.Contains(t, []string{"", "completed", "failed", "cancelled", "interrupted"}, f.EndReason)
		}
		for _, s := range c.Side {
			id, ok := strings.CutPrefix(s.Rel, "sessions/")
			require.True(t, ok, s.Rel)
			if rest, ok := strings.CutPrefix(id, AttemptsDirName+"/"); ok {
				id, _, _ = strings.Cut(rest, "/")
			} else if _, ok := strings.CutPrefix(id, ResumeTokensDirName+"/"); ok {
				var tok struct {
					SessionID string `json:"session_id"`
				}
				require.NoError(t, json.Unmarshal(s.Data, &tok), s.Rel)
				id = tok.SessionID
			}
			id = strings.TrimSuffix(strings.TrimSuffix(id, ".tokens.json"), ".json")
			assert.True(t, ids[id], "%s: %s belongs to a session", name, s.Rel)
		}
		for model := range c.TokensByModel() {
			assert.True(t, strings.HasPrefix(model, "claude-"), "%s: only a Claude provider's usage counts: %s", name, model)
		}
	}
}

// TestCleanRunsKeepTheRules: without faults seq rises by one per line,
// nothing is annotated, every snapshot is whole, and every run ends.
func TestCleanRunsKeepTheRules(t *testing.T) {
	for _, name := range []string{"clean", "clean-big", "one"} {
		c := testCorpora(t)[name]
		for _, f := range c.Files {
			assert.Nil(t, f.PartialTail)
			assert.NotEmpty(t, f.EndReason, "%s: the last run ended", f.Rel)
			for i, l := range f.Lines {
				assert.True(t, l.Valid, l.Text)
				assert.Empty(t, l.Expect, l.Text)
				assert.Equal(t, int64(i+1), l.Seq, "seq rises by one from 1")
			}
		}
		for _, s := range c.Side {
			assert.True(t, json.Valid(s.Data), s.Rel)
		}
	}
}
