package gosession

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/journalship/journalship/internal/sample"
)

func testConfig(seed int64, sessions int, faults bool) Config {
	return Config{Seed: seed, Sessions: sessions, Start: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC),
		Models: append([]string(nil), DefaultModels...), Faults: faults}
}

// corpus is a generated corpus with its per-session truth.
type corpus struct {
	*sample.Corpus
	sessions []Session
	faults   bool
}

var (
	corporaOnce sync.Once
	corpora     map[string]corpus
	corporaErr  error
)

// testCorpora are the corpora the property tests check (generated once,
// never modified): the fixture, other seeds, no faults, many sessions,
// one session, one model.
func testCorpora(t *testing.T) map[string]corpus {
	t.Helper()
	corporaOnce.Do(func() {
		cfgs := map[string]Config{
			"fixture":   FixtureConfig(),
			"seed7":     testConfig(7, MinFaultSessions, true),
			"seed-3":    testConfig(-3, 24, true),
			"clean":     testConfig(7, 12, false),
			"clean-big": testConfig(11, 120, false),
			"one":       testConfig(5, 1, false),
			"one-model": {Seed: 2, Sessions: 11, Start: time.Date(2025, 12, 31, 23, 59, 59, 999_000_000, time.UTC), Models: []string{"claude-haiku-4-5-20251001"}, Faults: true},
		}
		corpora = map[string]corpus{}
		for name, cfg := range cfgs {
			c, ss, err := GenerateWithTruth(cfg)
			if err != nil {
				corporaErr = fmt.Errorf("%s: %w", name, err)
				return
			}
			corpora[name] = corpus{c, ss, cfg.Faults}
		}
	})
	require.NoError(t, corporaErr)
	return corpora
}

// filesOf returns a session's files: messages.jsonl, then
// transcript.jsonl when it has one.
func filesOf(c *sample.Corpus, id string) []sample.File {
	var out []sample.File
	for _, f := range c.Files {
		if f.SessionID == id {
			out = append(out, f)
		}
	}
	return out
}

// sideOf returns a session's side file rel, or nil.
func sideOf(c *sample.Corpus, rel string) []byte {
	for _, s := range c.Side {
		if s.Rel == rel {
			return s.Data
		}
	}
	return nil
}

func TestGenerateDeterministic(t *testing.T) {
	for _, cfg := range []Config{FixtureConfig(), testConfig(42, 12, false), testConfig(-8, 15, true)} {
		a, sa, err := GenerateWithTruth(cfg)
		require.NoError(t, err)
		b, sb, err := GenerateWithTruth(cfg)
		require.NoError(t, err)
		assert.Equal(t, a, b)
		assert.Equal(t, sa, sb)
		ta, err := a.TruthJSON()
		require.NoError(t, err)
		tb, err := b.TruthJSON()
		require.NoError(t, err)
		assert.Equal(t, string(ta), string(tb))
		c, err := Generate(cfg)
		require.NoError(t, err)
		assert.Equal(t, a, c, "Generate is GenerateWithTruth's corpus")
		other := cfg
		other.Seed++
		d, err := Generate(other)
		require.NoError(t, err)
		assert.NotEqual(t, a.Files[0].Data, d.Files[0].Data, "another seed gives other bytes")
	}
}

// TestSessionsAreIndependent: each session draws from its own stream,
// so adding a session leaves the others as they were (up to 10 sessions
// are spaced 4 minutes apart).
func TestSessionsAreIndependent(t *testing.T) {
	small, ss, err := GenerateWithTruth(testConfig(3, 9, true))
	require.NoError(t, err)
	big, bs, err := GenerateWithTruth(testConfig(3, 10, true))
	require.NoError(t, err)
	require.Greater(t, len(big.Files), len(small.Files))
	assert.Equal(t, small.Files, big.Files[:len(small.Files)])
	assert.Equal(t, small.Side, big.Side[:len(small.Side)])
	assert.Equal(t, ss, bs[:len(ss)])
}

func TestGenerateIsFast(t *testing.T) {
	start := time.Now()
	c, err := Generate(DefaultConfig())
	require.NoError(t, err)
	assert.Less(t, time.Since(start), 3*time.Second)
	assert.NotEmpty(t, c.Files)
}

// TestLinesMatchData: the lines, in order, with their newlines and the
// partial tail, are the file's bytes; offsets point at them.
func TestLinesMatchData(t *testing.T) {
	for name, c := range testCorpora(t) {
		for _, f := range c.Files {
			var b bytes.Buffer
			for _, l := range f.Lines {
				require.Equal(t, int64(b.Len()), l.Offset, "%s %s", name, f.Rel)
				require.NotContains(t, l.Text, "\n")
				assert.Equal(t, l.Text, string(f.Data[l.Offset:l.Offset+int64(len(l.Text))]))
				b.WriteString(l.Text + "\n")
			}
			b.Write(f.PartialTail)
			require.Equal(t, string(f.Data), b.String(), "%s %s", name, f.Rel)
			assert.NotEmpty(t, f.Lines, "%s %s", name, f.Rel)
			if f.PartialTail != nil {
				assert.NotContains(t, string(f.PartialTail), "\n")
				assert.False(t, json.Valid(f.PartialTail), "a partial line is no JSON")
			}
		}
	}
}

// TestTypesReparse: each line, parsed on its own, is what the truth says:
// a corrupt line is no JSON object with a string role (messages) or is
// no JSON object (transcript); any other has the truth's type.
func TestTypesReparse(t *testing.T) {
	known := []string{TypeUser, TypeAssistant, TypeTool, TypeSystem}
	for name, c := range testCorpora(t) {
		for _, f := range c.Files {
			transcript := strings.HasSuffix(f.Rel, "/transcript.jsonl")
			for _, l := range f.Lines {
				where := fmt.Sprintf("%s %s %.100q", name, f.Rel, l.Text)
				var m map[string]any
				isObj := json.Unmarshal([]byte(l.Text), &m) == nil && m != nil
				role, hasRole := m["role"].(string)
				if inner, ok := m["message"].(map[string]any); ok && m["role"] == nil {
					role, hasRole = inner["role"].(string) // Goat's MessageEntry
				}
				switch {
				case l.Corrupt:
					assert.Empty(t, l.Type, where)
					assert.False(t, isObj && (transcript || hasRole), "%s: corrupt, yet readable", where)
				case transcript:
					require.True(t, isObj, where)
					assert.Equal(t, TypeTranscript, l.Type, where)
					assert.IsType(t, "", m["type"], where)
				default:
					require.True(t, isObj && hasRole, where)
					want := role
					if !slices.Contains(known, role) {
						want = TypeOther
					}
					assert.Equal(t, want, l.Type, where)
				}
			}
		}
	}
}

var relRE = regexp.MustCompile(`^([0-9a-f-]{36})/(messages\.jsonl|transcript\.jsonl|metadata\.json|messages\.jsonl\.lock|transcript\.jsonl\.lock|checkpoints/([^/]+)/(manifest\.json|blobs/[0-9a-f]{64}|files/[0-9a-f]{64}))$`)

// TestLayout: every file is where the store puts it, with the identity
// the truth gives it; one Session per directory, in the corpus's order.
func TestLayout(t *testing.T) {
	for name, c := range testCorpora(t) {
		var dirs []string
		for _, f := range c.Files {
			m := relRE.FindStringSubmatch(f.Rel)
			require.NotNil(t, m, "%s: %s", name, f.Rel)
			assert.Equal(t, m[1], f.SessionID)
			assert.Equal(t, FormatName, f.Format)
			assert.Empty(t, f.JobID+f.RunID+f.Pod+f.AgentID, f.Rel)
			u, err := uuid.Parse(f.SessionID)
			require.NoError(t, err)
			assert.Equal(t, uuid.Version(4), u.Version())
			if !slices.Contains(dirs, f.SessionID) {
				dirs = append(dirs, f.SessionID)
			}
		}
		require.Len(t, c.sessions, len(dirs), name)
		for i, s := range c.sessions {
			assert.Equal(t, dirs[i], s.ID)
			assert.Equal(t, s.ID, s.Dir)
			files := filesOf(c.Corpus, s.ID)
			require.NotEmpty(t, files)
			assert.Equal(t, s.ID+"/messages.jsonl", files[0].Rel)
			assert.Equal(t, s.Transcript, len(files) == 2, s.ID)
			assert.NotNil(t, sideOf(c.Corpus, s.ID+"/messages.jsonl.lock"), "every session has its lock file")
			assert.Equal(t, s.Transcript, sideOf(c.Corpus, s.ID+"/transcript.jsonl.lock") != nil)
		}
		for _, sf := range c.Side {
			m := relRE.FindStringSubmatch(sf.Rel)
			require.NotNil(t, m, "%s: %s", name, sf.Rel)
			if h := m[4]; len(h) > 64 {
				assert.Equal(t, h[len(h)-64:], sample.SHA256Hex(string(sf.Data)), "content-addressed: %s", sf.Rel)
			}
		}
	}
}
