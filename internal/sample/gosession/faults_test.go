package gosession

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/journalship/journalship/internal/sample"
)

// faultCorpora are the test corpora with faults.
func faultCorpora(t *testing.T) map[string]corpus {
	out := map[string]corpus{}
	for name, c := range testCorpora(t) {
		if c.faults {
			out[name] = c
		}
	}
	require.Len(t, out, 4)
	return out
}

// expects counts the annotation kinds of a session's lines.
func expects(c *sample.Corpus, id string) map[string]int {
	out := map[string]int{}
	for _, f := range filesOf(c, id) {
		for _, l := range f.Lines {
			for _, e := range l.Expect {
				out[e]++
			}
		}
	}
	return out
}

// TestFaultScenarios: each fault session is the scenario the package doc
// describes, whatever the seed or the models.
func TestFaultScenarios(t *testing.T) {
	for name, c := range faultCorpora(t) {
		t.Run(name, func(t *testing.T) {
			ss := c.sessions
			for i, want := range faultScenarios {
				require.Equal(t, want, ss[i].Scenario)
			}
			for _, s := range ss[MinFaultSessions:] {
				assert.Equal(t, ScenarioClean, s.Scenario)
			}
			for i, s := range ss {
				if i != 4 && i != 5 {
					assert.Empty(t, expects(c.Corpus, s.ID), "only the lost and damaged sessions are annotated: %s", s.Scenario)
				}
			}
			ends := func(s Session) []any {
				return []any{s.Over, s.ExitReason, s.State, len(s.Unanswered), s.MetadataReadable}
			}

			fin := ss[0]
			assert.Equal(t, []any{true, "end_turn", StateIdle, 0, true}, ends(fin))
			assert.True(t, fin.Transcript)
			require.Len(t, fin.Checkpoints, 2)
			assert.Equal(t, "cp-001", fin.Checkpoints[0].ID)
			assert.Equal(t, fin.Checkpoints[1].ID, fin.Checkpoints[1].Dir, "Goat's shape: the prompt's uuid")
			assert.Contains(t, string(sideOf(c.Corpus, fin.ID+"/checkpoints/"+fin.Checkpoints[1].Dir+"/manifest.json")), `"user_message_uuid"`)
			assert.Empty(t, expects(c.Corpus, fin.ID))

			run := ss[1]
			assert.Equal(t, []any{false, "", StateActing, 1, true}, ends(run))
			assert.True(t, run.Transcript)
			assert.Equal(t, run.CreatedAt, run.UpdatedAt, "metadata.json as Create wrote it")

			res := ss[2]
			assert.Equal(t, []any{false, "", StateThinking, 0, true}, ends(res), "Goat's shape: the second run's Create rewrote metadata.json")
			assert.True(t, res.Nested)
			assert.Equal(t, res.CreatedAt, res.UpdatedAt)
			assert.True(t, res.CreatedAt.After(firstTime(t, filesOf(c.Corpus, res.ID)[0])), "created_at is the second run's start")
			tr := string(filesOf(c.Corpus, res.ID)[1].Data)
			assert.Equal(t, 2, strings.Count(tr, `"subtype":"init"`))
			assert.Equal(t, 1, strings.Count(tr, `"type":"result"`))
			assert.True(t, lastTime(t, filesOf(c.Corpus, res.ID)[0]).After(res.UpdatedAt), "new messages after updated_at")

			assert.False(t, fin.Nested, "the spec's shape")
			fork := ss[3]
			assert.Equal(t, []any{false, "end_turn", StateThinking, 0, true}, ends(fork))
			assert.Equal(t, fin.ID, fork.ParentID)
			assert.Equal(t, []any{fin.TurnCount, fin.TotalCostUSD, fin.Model, fin.CWD}, []any{fork.TurnCount, fork.TotalCostUSD, fork.Model, fork.CWD})
			assert.Equal(t, fork.CreatedAt, fork.UpdatedAt)
			assert.True(t, bytes.HasPrefix(filesOf(c.Corpus, fork.ID)[0].Data, filesOf(c.Corpus, fin.ID)[0].Data), "the source's messages, byte for byte")
			assert.Empty(t, expects(c.Corpus, fork.ID), "copies are unique and ordered within the fork's file")

			lost := ss[4]
			assert.Equal(t, []any{true, "end_turn", StateIdle, 0, true}, ends(lost))
			assert.Equal(t, map[string]int{AnnUUIDRepeat: 1, AnnToolResultWithoutCall: 1, AnnTimestampRegression: 1}, expects(c.Corpus, lost.ID))

			dmg := ss[5]
			assert.Equal(t, []any{true, "max_turns", StateIdle, 1, true}, ends(dmg))
			assert.Equal(t, map[string]int{AnnCorrupt: 3, AnnSchemaInvalid: 4, AnnDuplicateKey: 1, AnnUnknownType: 1}, expects(c.Corpus, dmg.ID))
			assert.Contains(t, string(filesOf(c.Corpus, dmg.ID)[0].Data), "\x00\x00\x00")

			crash := ss[6]
			assert.Equal(t, []any{false, "", StateActing, 1, false}, ends(crash))
			assert.Nil(t, sideOf(c.Corpus, crash.ID+"/metadata.json"), "no metadata.json")
			assert.NotEmpty(t, filesOf(c.Corpus, crash.ID)[0].PartialTail)

			half := ss[7]
			assert.Equal(t, []any{false, "", StateIdle, 0, false}, ends(half))
			meta := sideOf(c.Corpus, half.ID+"/metadata.json")
			require.NotEmpty(t, meta)
			assert.False(t, json.Valid(meta))
			assert.Contains(t, string(meta), `"session_id": "`+half.ID+`"`)
			var cut int
			for _, sf := range c.Side {
				if strings.HasPrefix(sf.Rel, half.ID+"/checkpoints/") && strings.HasSuffix(sf.Rel, "/manifest.json") && !json.Valid(sf.Data) {
					cut++
				}
			}
			assert.Equal(t, 1, cut, "one half-written manifest")
			assert.NotEmpty(t, half.Checkpoints, "the complete ones are listed")

			un := ss[8]
			assert.Equal(t, []any{true, "interrupted", StateIdle, 2, true}, ends(un))
		})
	}
}

// TestCleanSessions: clean sessions carry no annotation, every line
// valid, their metadata whole; between them they end and run.
func TestCleanSessions(t *testing.T) {
	ends := map[string]int{}
	for name, c := range testCorpora(t) {
		for i, s := range c.sessions {
			if c.faults && i < MinFaultSessions {
				continue
			}
			assert.Empty(t, expects(c.Corpus, s.ID), "%s %s", name, s.ID)
			assert.True(t, s.MetadataReadable)
			for _, f := range filesOf(c.Corpus, s.ID) {
				assert.Nil(t, f.PartialTail)
				for _, l := range f.Lines {
					assert.True(t, l.Valid, l.Text)
				}
			}
			assert.Equal(t, s.ExitReason != "", s.Over, "a clean session is over when it has an exit reason")
			ends[s.ExitReason]++
		}
	}
	for _, e := range []string{"", "end_turn", "max_turns", "error_max_budget_usd"} {
		assert.Positive(t, ends[e], "%q", e)
	}
}

// lastTime is the newest message timestamp of a messages.jsonl.
func lastTime(t *testing.T, f sample.File) (last time.Time) {
	t.Helper()
	for _, l := range f.Lines {
		var m struct{ Timestamp time.Time }
		if !l.Corrupt && json.Unmarshal([]byte(l.Text), &m) == nil && m.Timestamp.After(last) {
			last = m.Timestamp
		}
	}
	return last
}

// firstTime is the timestamp of a messages.jsonl's first line.
func firstTime(t *testing.T, f sample.File) time.Time {
	t.Helper()
	var m struct{ Timestamp time.Time }
	require.NoError(t, json.Unmarshal([]byte(f.Lines[0].Text), &m))
	return m.Timestamp
}
