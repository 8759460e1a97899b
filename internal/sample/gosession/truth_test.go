package gosession

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTruthConsistent: what the truth says of each line agrees with
// itself.
func TestTruthConsistent(t *testing.T) {
	order := []string{AnnCorrupt, AnnSchemaInvalid, AnnUnknownType, AnnDuplicateKey, AnnUUIDRepeat, AnnTimestampRegression, AnnToolResultWithoutCall}
	for name, c := range testCorpora(t) {
		for _, f := range c.Files {
			transcript := f.Rel[len(f.Rel)-len("transcript.jsonl"):] == "transcript.jsonl"
			for _, l := range f.Lines {
				where := name + " " + f.Rel + " " + l.Text[:min(120, len(l.Text))]
				assert.Equal(t, int64(-1), l.Seq, where)
				assert.False(t, l.Counted, where)
				assert.False(t, l.Valid && l.Corrupt, where)
				assert.Equal(t, l.Corrupt, slices.Contains(l.Expect, AnnCorrupt), where)
				assert.Equal(t, !l.Valid && !l.Corrupt, slices.Contains(l.Expect, AnnSchemaInvalid) || slices.Contains(l.Expect, AnnUnknownType), where)
				var at []int
				for _, e := range l.Expect {
					at = append(at, slices.Index(order, e))
				}
				assert.True(t, slices.IsSorted(at) && !slices.Contains(at, -1), "%s: %v", where, l.Expect)
				switch {
				case l.Corrupt || transcript:
					assert.Empty(t, l.State, where)
				default:
					assert.Contains(t, []string{StateIdle, StateActing, StateThinking}, l.State, where)
				}
				if l.Model != "" {
					assert.Equal(t, TypeAssistant, l.Type, where)
				}
			}
		}
	}
}

// TestSessionTruth: each Session agrees with its files: the metadata it
// reads, its end, its last state.
func TestSessionTruth(t *testing.T) {
	for name, c := range testCorpora(t) {
		for _, s := range c.sessions {
			where := name + " " + s.ID + " " + s.Scenario
			files := filesOf(c.Corpus, s.ID)
			meta := sideOf(c.Corpus, s.ID+"/metadata.json")
			var m metaDoc
			var g goatMetaDoc
			readable := meta != nil && json.Unmarshal(meta, &m) == nil
			require.Equal(t, readable, s.MetadataReadable, where)
			if readable {
				var doc any = m
				if s.Nested {
					require.NoError(t, json.Unmarshal(meta, &g))
					assert.Empty(t, m.SessionID, "%s: Goat names the session by id", where)
					m.SessionID, m.MessageCount, doc = g.ID, g.MessageCount, g
				}
				want, err := json.MarshalIndent(doc, "", "  ")
				require.NoError(t, err)
				assert.Equal(t, string(want), string(meta), "%s: as json.MarshalIndent writes it", where)
				assert.Equal(t, s.ID, m.SessionID, where)
				assert.Equal(t, []any{m.ExitReason, m.TurnCount, m.TotalCostUSD, m.ParentSessionID, m.Model, m.AgentName, m.CWD},
					[]any{s.ExitReason, s.TurnCount, s.TotalCostUSD, s.ParentID, s.Model, s.AgentName, s.CWD}, where)
				assert.True(t, m.CreatedAt.Equal(s.CreatedAt) && m.UpdatedAt.Equal(s.UpdatedAt), where)
				assert.False(t, s.UpdatedAt.Before(s.CreatedAt), where)
			} else {
				assert.Zero(t, s.ExitReason+s.Model+s.CWD, where)
			}
			for _, f := range files {
				want := ""
				if s.Over {
					want = s.ExitReason
				}
				assert.Equal(t, want, f.EndReason, "%s %s", where, f.Rel)
			}
			last := ""
			for _, l := range files[0].Lines {
				if !l.Corrupt {
					last = l.State
				}
				if l.Type == TypeAssistant && !l.Corrupt {
					assert.Equal(t, s.Model, l.Model, where)
				}
			}
			if s.Over {
				assert.Equal(t, StateIdle, s.State, where)
			} else {
				assert.Equal(t, last, s.State, where)
			}
			assert.True(t, slices.IsSortedFunc(s.Checkpoints, func(a, b Checkpoint) int { return a.Time.Compare(b.Time) }), where)
			for _, cp := range s.Checkpoints {
				b := sideOf(c.Corpus, s.ID+"/checkpoints/"+cp.Dir+"/manifest.json")
				var doc struct{ Files []json.RawMessage }
				require.NoError(t, json.Unmarshal(b, &doc), where)
				assert.Len(t, doc.Files, cp.Files, where)
			}
		}
	}
}

// TestTimes: every message time lies within 100 minutes of the corpus's
// first, and goes back only where the truth says so.
func TestTimes(t *testing.T) {
	for name, c := range testCorpora(t) {
		var first time.Time
		for _, f := range c.Files {
			var prev time.Time
			for _, l := range f.Lines {
				var m struct{ Timestamp string }
				if l.Corrupt || json.Unmarshal([]byte(l.Text), &m) != nil || m.Timestamp == "" {
					continue
				}
				at, err := time.Parse(time.RFC3339Nano, m.Timestamp)
				require.NoError(t, err, l.Text)
				assert.Equal(t, at.Format(time.RFC3339Nano), m.Timestamp, "as Go writes it")
				if first.IsZero() {
					first = at
				}
				assert.Less(t, at.Sub(first), 100*time.Minute, name)
				assert.Equal(t, at.Before(prev), slices.Contains(l.Expect, AnnTimestampRegression), "%s %s", name, l.Text)
				prev = at
			}
		}
	}
}
