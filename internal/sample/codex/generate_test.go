package codex

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/journalship/journalship/internal/sample"
)

func TestConfig(t *testing.T) {
	require.NoError(t, DefaultConfig().Validate())
	require.NoError(t, FixtureConfig().Validate())
	assert.WithinDuration(t, time.Now().Add(-2*time.Hour), DefaultConfig().Start, time.Minute)
	cfg := FixtureConfig()
	cfg.Sessions = MinFaultSessions - 1
	var ce *sample.ConfigError
	_, err := Generate(cfg)
	require.True(t, errors.As(err, &ce))
	assert.Equal(t, "Sessions", ce.Field)
	cfg.Faults = false
	require.NoError(t, cfg.Validate(), "without faults one session is enough")
	cfg.Models = nil
	require.Error(t, cfg.Validate())
}

func TestDeterministic(t *testing.T) {
	a, err := Generate(FixtureConfig())
	require.NoError(t, err)
	b, err := Generate(FixtureConfig())
	require.NoError(t, err)
	require.Equal(t, len(a.Files), len(b.Files))
	for i := range a.Files {
		assert.Equal(t, a.Files[i].Data, b.Files[i].Data, a.Files[i].Rel)
	}
	cfg := FixtureConfig()
	cfg.Seed = 2
	c, err := Generate(cfg)
	require.NoError(t, err)
	assert.NotEqual(t, a.Files[5].Data, c.Files[5].Data)
}

// TestLinesAreWhatTheTruthSays: the truth's offsets and texts are the
// file's lines; readable lines are JSON objects with the envelope, times
// never decrease, and the partial tail is what follows the last newline.
func TestLinesAreWhatTheTruthSays(t *testing.T) {
	c, err := Generate(FixtureConfig())
	require.NoError(t, err)
	for _, f := range c.Files {
		assert.True(t, strings.HasPrefix(f.Rel, "sessions/"), f.Rel)
		assert.True(t, strings.HasSuffix(f.Rel, "-"+f.SessionID+".jsonl"), f.Rel)
		var last time.Time
		var end int64
		for _, l := range f.Lines {
			assert.Equal(t, l.Text, string(f.Data[l.Offset:l.Offset+int64(len(l.Text))]))
			assert.Equal(t, byte('\n'), f.Data[l.Offset+int64(len(l.Text))])
			end = l.Offset + int64(len(l.Text)) + 1
			if l.Corrupt {
				continue
			}
			var v struct{ Timestamp string }
			require.NoError(t, json.Unmarshal([]byte(l.Text), &v), l.Text)
			ts, err := time.Parse(time.RFC3339Nano, v.Timestamp)
			require.NoError(t, err)
			assert.False(t, ts.Before(last), "%s: time goes back at %d", f.Rel, l.Offset)
			last = ts
		}
		assert.Equal(t, string(f.PartialTail), string(f.Data[end:]), f.Rel)
		assert.True(t, bytes.HasPrefix(f.Data, []byte(`{"timestamp":"`)), f.Rel)
	}
}

// TestScenarios: the fault sessions hold what the package doc promises.
func TestScenarios(t *testing.T) {
	c, err := Generate(FixtureConfig())
	require.NoError(t, err)
	expect := func(f sample.File) map[string]int {
		m := map[string]int{}
		for _, l := range f.Lines {
			for _, e := range l.Expect {
				m[e]++
			}
		}
		return m
	}
	assert.Equal(t, map[string]int{"usage_reset": 1}, expect(c.Files[0]))
	assert.Empty(t, expect(c.Files[1]))
	e := expect(c.Files[2])
	assert.Equal(t, 1, e["session_id_mismatch"])
	assert.Positive(t, e["counted_elsewhere"])
	assert.Equal(t, map[string]int{"corrupt": 2, "unknown_type": 1, "payload_type_unknown": 1, "tool_result_without_call": 1,
		"schema_invalid": 1, "usage_inconsistent": 1}, expect(c.Files[3]))
	assert.NotEmpty(t, c.Files[4].PartialTail)
	assert.Equal(t, StateActing, c.Files[4].Lines[len(c.Files[4].Lines)-1].State)
	for _, f := range c.Files[MinFaultSessions:] {
		assert.Empty(t, expect(f), f.Rel)
		assert.Equal(t, StateIdle, f.Lines[len(f.Lines)-1].State, f.Rel)
		for _, l := range f.Lines {
			assert.True(t, l.Valid, l.Text)
		}
	}
	for _, s := range []string{`"type":"turn_aborted"`, `"type":"compacted"`, `"info":null`, `"forked_from_id"`, `patch rejected by user`} {
		found := false
		for _, f := range c.Files {
			found = found || bytes.Contains(f.Data, []byte(s))
		}
		assert.True(t, found, s)
	}
}

// TestTokensByModelAndSession: a clean session's counted tokens equal
// its final totals (the runtime's sum of every response).
func TestTokensByModelAndSession(t *testing.T) {
	cfg := FixtureConfig()
	cfg.Faults, cfg.Sessions = false, 12
	c, err := Generate(cfg)
	require.NoError(t, err)
	models := 0
	for _, f := range c.Files {
		var in, out int64
		for _, l := range f.Lines {
			if l.Counted {
				in += l.PromptTokens
				out += l.CompletionTokens
				assert.LessOrEqual(t, l.CacheReadTokens, l.PromptTokens)
			}
		}
		var final struct {
			Payload struct {
				Info struct {
					Total struct {
						In  int64 `json:"input_tokens"`
						Out int64 `json:"output_tokens"`
					} `json:"total_token_usage"`
				}
			}
		}
		for _, l := range f.Lines {
			if strings.Contains(l.Text, `"total_token_usage"`) {
				require.NoError(t, json.Unmarshal([]byte(l.Text), &final))
			}
		}
		assert.Equal(t, final.Payload.Info.Total.In, in, f.Rel)
		assert.Equal(t, final.Payload.Info.Total.Out, out, f.Rel)
	}
	for range c.TokensByModel() {
		models++
	}
	assert.GreaterOrEqual(t, models, 2)
}

func TestKind(t *testing.T) {
	c, err := Kind.Fixture()
	require.NoError(t, err)
	f := c.Files[0]
	at := time.Date(2026, 3, 1, 9, 30, 5, 0, time.UTC)
	assert.Equal(t, "sessions/2026/03/01/rollout-2026-03-01T09-30-05-"+f.SessionID+".jsonl", Kind.Place(f, at))
	line, d := Kind.Stamp(f.Lines[0].Text, at)
	assert.True(t, strings.HasPrefix(line, `{"timestamp":"2026-03-01T09:30:05.000Z"`), line)
	assert.NotZero(t, d)
	c2, err := Kind.Generate(3, MinFaultSessions, at, true)
	require.NoError(t, err)
	assert.Len(t, c2.Files, MinFaultSessions)
}

// TestSimulatedSaysWhatSimulateWrites: journalship simulate writes clean
// corpora (no fault scenario), so its help, Kind.Simulated, promises
// forks only if a clean corpus holds one.
func TestSimulatedSaysWhatSimulateWrites(t *testing.T) {
	forks := false
	for seed := range int64(20) {
		c, err := Kind.Generate(seed, 8, time.Date(2026, 3, 1, 9, 30, 5, 0, time.UTC), false)
		require.NoError(t, err)
		for _, f := range c.Files {
			forks = forks || strings.Contains(f.Lines[0].Text, `"forked_from_id"`)
		}
	}
	assert.Equal(t, forks, strings.Contains(Kind.Simulated, "fork"), "Simulated: %s", Kind.Simulated)
}
