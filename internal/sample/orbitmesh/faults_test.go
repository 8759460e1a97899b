package orbitmesh

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/journalship/journalship/internal/sample"
)

// faultCorpora are the corpora with faults.
func faultCorpora(t *testing.T) map[string]*sample.Corpus {
	out := map[string]*sample.Corpus{}
	for name, c := range testCorpora(t) {
		if len(c.Files) >= MinFaultSessions && strings.Contains(string(c.Files[2].Data), KindMemoryCompacted) {
			out[name] = c
		}
	}
	require.Len(t, out, 4)
	return out
}

// TestEveryFaultIsPresent: between them the fault sessions carry every
// annotation kind the truth knows, and nothing else is annotated.
func TestEveryFaultIsPresent(t *testing.T) {
	want := []string{AnnCorrupt, AnnSchemaInvalid, AnnUnknownType, AnnSeqGap, AnnSeqRepeat, AnnSeqRegression,
		AnnStatusDisagrees, AnnDuplicateInterrupt}
	for name, c := range faultCorpora(t) {
		seen := map[string]bool{}
		for i, f := range c.Files {
			for _, l := range f.Lines {
				for _, e := range l.Expect {
					kind, _, _ := strings.Cut(e, ":")
					seen[kind] = true
					assert.Less(t, i, MinFaultSessions, "%s: a clean session is annotated: %s", name, l.Text)
				}
			}
		}
		for _, k := range want {
			assert.True(t, seen[k], "%s: no line carries %s", name, k)
		}
		assert.Len(t, seen, len(want), "%s: %v", name, seen)
	}
}

func TestCrashedSession(t *testing.T) {
	for name, c := range faultCorpora(t) {
		f := c.Files[0]
		require.NotEmpty(t, f.PartialTail, name)
		assert.False(t, json.Valid(f.PartialTail))
		assert.True(t, strings.HasPrefix(string(f.PartialTail), `{"seq":`), "the tail is the start of a record")
		assert.Empty(t, f.EndReason, "a crash leaves the run open")
		last := f.Lines[len(f.Lines)-1]
		assert.Equal(t, StatusInterruptedStartup, last.State, "%s: the snapshot shows the run under the previous boot", name)
		for _, l := range f.Lines[:len(f.Lines)-1] {
			assert.NotEqual(t, StatusInterruptedStartup, l.State, "before the snapshot's last_seq its boot does not count")
		}
		snap := snapshotOf(t, c, f)
		run := snap["run"].(map[string]any)
		assert.NotEqual(t, run["boot_id"], snap["recovery"].(map[string]any)["last_boot_seen"])
		assert.Nil(t, run["ended_at"])
		assert.NotNil(t, sideOf(c, f, ".tokens.json"))
	}
}

func TestInterruptedSession(t *testing.T) {
	for name, c := range faultCorpora(t) {
		f := c.Files[1]
		assert.Equal(t, "interrupted", f.EndReason, name)
		n := len(f.Lines)
		first, dup, status := f.Lines[n-3], f.Lines[n-2], f.Lines[n-1]
		assert.Equal(t, KindRunInterrupted, first.Type)
		assert.Empty(t, first.Expect)
		assert.Equal(t, KindRunInterrupted, dup.Type)
		assert.Equal(t, []string{"seq_repeat:after " + itoa(first.Seq), AnnDuplicateInterrupt}, dup.Expect, name)
		assert.Equal(t, first.Seq, dup.Seq)
		assert.Equal(t, KindStatusDerived, status.Type)
		for _, l := range f.Lines[n-3:] {
			assert.Equal(t, StatusInterruptedStartup, l.State)
		}
		snap := snapshotOf(t, c, f)
		assert.NotNil(t, snap["run"].(map[string]any)["ended_at"])
		assert.Equal(t, ReasonProcessRestart, snap["recovery"].(map[string]any)["interruption"].(map[string]any)["reason"])
	}
}

var gapRE = regexp.MustCompile(`^seq_gap:(\d+)(-(\d+))?$`)

func TestDamagedSession(t *testing.T) {
	for name, c := range faultCorpora(t) {
		f := c.Files[2]
		var gaps, regressions []string
		corrupt, unknown := 0, 0
		for i, l := range f.Lines {
			for _, e := range l.Expect {
				switch {
				case gapRE.MatchString(e):
					gaps = append(gaps, e)
				case strings.HasPrefix(e, AnnSeqRegression+":after "):
					regressions = append(regressions, e)
				case e == AnnUnknownType:
					unknown++
					assert.Equal(t, KindMemoryCompacted, l.Type)
					assert.False(t, l.Valid)
				case e == AnnCorrupt:
					corrupt++
					next := f.Lines[i+1]
					if next.Type == KindMessageSystem { // the stale notice comes between
						next = f.Lines[i+2]
					}
					m := gapRE.FindStringSubmatch(next.Expect[0])
					require.NotNil(t, m, "%s: the line after the torn one reports the two seqs it swallowed", name)
					assert.NotEmpty(t, m[3], "two seqs")
				}
			}
			if l.Type == KindMessageAssistant {
				assert.Empty(t, l.Model, "a half-written snapshot gives no model")
			}
		}
		assert.Len(t, gaps, 2, "%s: the lost record and the torn line", name)
		assert.Len(t, regressions, 1, name)
		assert.Equal(t, 1, corrupt, name)
		assert.Equal(t, 1, unknown, name)
		snap := sideOf(c, f, ".json")
		require.NotNil(t, snap)
		assert.False(t, json.Valid(snap), "%s: the snapshot is half-written", name)
		assert.Nil(t, sideOf(c, f, ".tokens.json"))
	}
}

func TestTokenlessSession(t *testing.T) {
	for name, c := range faultCorpora(t) {
		f := c.Files[3]
		assert.Nil(t, sideOf(c, f, ".json"), "%s: no snapshot", name)
		assert.Nil(t, sideOf(c, f, ".tokens.json"), "%s: no token index", name)
		var wait, disagree int
		for i, l := range f.Lines {
			if l.Type == KindRunWaiting {
				wait = i
				assert.Equal(t, []string{AnnSchemaInvalid}, l.Expect)
				assert.Contains(t, l.Text, `"resume_token_id":""`)
				assert.Equal(t, StatusInterruptedWaiting, l.State)
			}
			if len(l.Expect) == 1 && l.Expect[0] == AnnStatusDisagrees+":"+StatusInterruptedWaiting {
				disagree = i
				assert.Contains(t, l.Text, `"status":"waiting"`)
			}
		}
		assert.Equal(t, wait+1, disagree, "%s: the runtime publishes waiting right after", name)
		assert.Equal(t, StatusIdle, f.Lines[len(f.Lines)-1].State)
		assert.Equal(t, "completed", f.EndReason)
	}
}

func TestWaitingSession(t *testing.T) {
	for name, c := range faultCorpora(t) {
		f := c.Files[4]
		last := f.Lines[len(f.Lines)-1]
		assert.Equal(t, StatusWaiting, last.State, name)
		assert.Empty(t, f.EndReason)
		lastTS, err := time.Parse(time.RFC3339Nano, headRE.FindStringSubmatch(last.Text)[2])
		require.NoError(t, err)
		wait := snapshotOf(t, c, f)["run"].(map[string]any)["wait"].(map[string]any)
		deadline, err := time.Parse(time.RFC3339Nano, wait["deadline_at"].(string))
		require.NoError(t, err)
		assert.True(t, deadline.After(lastTS.Add(3*time.Hour)), "%s: the deadline is hours away", name)
		assert.Equal(t, WaitApproval, wait["kind"])
		idx := indexOf(t, c, f)
		assert.Equal(t, "active", idx[wait["resume_token_id"].(string)])
	}
}

// TestSnapshotsMatchLogs: a whole snapshot names its session, the model
// the truth gives assistant lines, the latest run and the last line's
// seq as last_seq (so its facts apply from the last line); a token index
// lists the tokens the log minted.
func TestSnapshotsMatchLogs(t *testing.T) {
	for name, c := range testCorpora(t) {
		for _, f := range c.Files {
			if isRuntime(f) {
				continue // its <id>.json is the runtime's session document
			}
			data := sideOf(c, f, ".json")
			if data == nil || !json.Valid(data) {
				for _, l := range f.Lines {
					assert.Empty(t, l.Model)
				}
				continue
			}
			snap := snapshotOf(t, c, f)
			assert.Equal(t, f.SessionID, snap["id"])
			last := f.Lines[len(f.Lines)-1]
			assert.Equal(t, json.Number(itoa(last.Seq)), snap["last_seq"], "%s %s", name, f.Rel)
			model := snap["provider"].(map[string]any)["model"]
			runs := map[string]bool{}
			var minted []string
			for _, l := range f.Lines {
				if l.Type == KindMessageAssistant {
					assert.Equal(t, model, l.Model)
				}
				if m := regexp.MustCompile(`"kind":"run.started","run_id":"([^"]+)"`).FindStringSubmatch(l.Text); m != nil {
					runs = map[string]bool{m[1]: true}
				}
				if m := regexp.MustCompile(`"kind":"token.minted","token_id":"([^"]+)"`).FindStringSubmatch(l.Text); m != nil {
					minted = append(minted, m[1])
				}
			}
			assert.True(t, runs[snap["run"].(map[string]any)["run_id"].(string)], "%s: the snapshot's run is the latest", f.Rel)
			if sideOf(c, f, ".tokens.json") != nil {
				idx := indexOf(t, c, f)
				assert.Len(t, idx, len(minted))
				for _, id := range minted {
					assert.Contains(t, idx, id)
				}
			}
		}
	}
}

// isRuntime tells whether f is written as OrbitMesh's storage writes it
// today (its first line has a timestamp, not the plan's ts).
func isRuntime(f sample.File) bool {
	return strings.Contains(string(f.Data[:min(len(f.Data), 40)]), `"timestamp":`)
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }

// sideOf returns the content of f's side file with the suffix, or nil.
func sideOf(c *sample.Corpus, f sample.File, suffix string) []byte {
	want := "sessions/" + f.SessionID + suffix
	for _, s := range c.Side {
		if s.Rel == want {
			return s.Data
		}
	}
	return nil
}

func snapshotOf(t *testing.T, c *sample.Corpus, f sample.File) map[string]any {
	t.Helper()
	d := json.NewDecoder(strings.NewReader(string(sideOf(c, f, ".json"))))
	d.UseNumber()
	var m map[string]any
	require.NoError(t, d.Decode(&m), f.Rel)
	return m
}

// indexOf returns the token index of f: state by token id.
func indexOf(t *testing.T, c *sample.Corpus, f sample.File) map[string]string {
	t.Helper()
	var doc indexDoc
	require.NoError(t, json.Unmarshal(sideOf(c, f, ".tokens.json"), &doc))
	out := map[string]string{}
	for _, e := range doc.Tokens {
		out[e.TokenID] = e.State
	}
	return out
}
