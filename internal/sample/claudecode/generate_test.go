package claudecode

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
	"github.com/journalship/journalship/pricing"
)

func testConfig(seed int64, sessions int, faults bool) Config {
	return Config{Seed: seed, Sessions: sessions, Start: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC),
		Models: append([]string(nil), DefaultModels...), Faults: faults}
}

var (
	corporaOnce sync.Once
	corpora     map[string]*sample.Corpus
	corporaErr  error
)

// testCorpora are the corpora the property tests check (generated once,
// never modified): the fixture, other seeds, no faults, many sessions,
// one session, one model.
func testCorpora(t *testing.T) map[string]*sample.Corpus {
	t.Helper()
	corporaOnce.Do(func() { corpora, corporaErr = generateTestCorpora() })
	require.NoError(t, corporaErr)
	return corpora
}

func generateTestCorpora() (map[string]*sample.Corpus, error) {
	cfgs := map[string]Config{
		"fixture":   FixtureConfig(),
		"seed7":     testConfig(7, MinFaultSessions, true),
		"seed-3":    testConfig(-3, 14, true),
		"clean":     testConfig(7, 8, false),
		"clean-big": testConfig(11, 80, false),
		"one":       testConfig(5, 1, false),
		"one-model": {Seed: 2, Sessions: MinFaultSessions, Start: time.Date(2025, 12, 31, 23, 59, 59, 999_000_000, time.UTC), Models: []string{"claude-haiku-4-5-20251001"}, Faults: true},
	}
	out := map[string]*sample.Corpus{}
	for name, cfg := range cfgs {
		c, err := Generate(cfg)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		out[name] = c
	}
	return out, nil
}

// sessionsOf groups a corpus's files by session, in order.
func sessionsOf(c *sample.Corpus) [][]sample.File {
	var out [][]sample.File
	at := map[string]int{}
	for _, f := range c.Files {
		i, ok := at[f.SessionID]
		if !ok {
			i = len(out)
			at[f.SessionID] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], f)
	}
	return out
}

func TestGenerateDeterministic(t *testing.T) {
	for _, cfg := range []Config{FixtureConfig(), testConfig(42, 12, false), testConfig(-8, 9, true)} {
		a, err := Generate(cfg)
		require.NoError(t, err)
		b, err := Generate(cfg)
		require.NoError(t, err)
		assert.Equal(t, a, b)
		ta, err := a.TruthJSON()
		require.NoError(t, err)
		tb, err := b.TruthJSON()
		require.NoError(t, err)
		assert.Equal(t, string(ta), string(tb))
		other := cfg
		other.Seed++
		c, err := Generate(other)
		require.NoError(t, err)
		assert.NotEqual(t, a.Files[0].Data, c.Files[0].Data, "another seed gives other bytes")
	}
}

// TestSessionsAreIndependent: up to 12 sessions are spaced 4 minutes
// apart and each session draws from its own stream: adding a session
// leaves the others as they were.
func TestSessionsAreIndependent(t *testing.T) {
	small, err := Generate(testConfig(3, 9, true))
	require.NoError(t, err)
	big, err := Generate(testConfig(3, 10, true))
	require.NoError(t, err)
	require.Greater(t, len(big.Files), len(small.Files))
	assert.Equal(t, small.Files, big.Files[:len(small.Files)])
	assert.Equal(t, small.Side, big.Side[:len(small.Side)])
}

// TestGenerateIsFast: the default corpus takes a few tens of
// milliseconds; the bound leaves room for a loaded machine.
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

var (
	mainRE     = regexp.MustCompile(`^(-[A-Za-z0-9-]+)/([0-9a-f-]{36})\.jsonl$`)
	subagentRE = regexp.MustCompile(`^(-[A-Za-z0-9-]+)/([0-9a-f-]{36})/subagents/agent-(a[0-9a-f]{7})\.jsonl$`)
	legacyRE   = regexp.MustCompile(`^(-[A-Za-z0-9-]+)/agent-(a[0-9a-f]{7})\.jsonl$`)
	metaRE     = regexp.MustCompile(`^(-[A-Za-z0-9-]+/[0-9a-f-]{36}/subagents/agent-a[0-9a-f]{7})\.meta\.json$`)
)

// TestLayout: every file is where Claude Code puts it, with the identity
// the truth gives it; every subagent file has its sidecar.
func TestLayout(t *testing.T) {
	for name, c := range testCorpora(t) {
		rels := map[string]sample.File{}
		mains := map[string]string{} // session → project
		for _, f := range c.Files {
			require.NotContains(t, rels, f.Rel, "%s: %s twice", name, f.Rel)
			rels[f.Rel] = f
			assert.Equal(t, FormatName, f.Format)
			assert.Empty(t, f.RunID+f.JobID+f.Pod, f.Rel)
			if isCapture(f) && f.PartialTail == nil {
				assert.Equal(t, "success", f.EndReason, "%s: a capture ends with its result", f.Rel)
			} else {
				assert.Empty(t, f.EndReason, "%s: a transcript has no end record", f.Rel)
			}
			assertV4(t, f.SessionID)
			switch m := mainRE.FindStringSubmatch(f.Rel); {
			case m != nil:
				assert.Equal(t, m[2], f.SessionID)
				assert.Empty(t, f.AgentID)
				mains[f.SessionID] = m[1]
			case subagentRE.MatchString(f.Rel):
				m := subagentRE.FindStringSubmatch(f.Rel)
				assert.Equal(t, m[2], f.SessionID)
				assert.Equal(t, m[3], f.AgentID)
				assert.Equal(t, mains[f.SessionID], m[1], "%s: beside its main transcript", f.Rel)
			case legacyRE.MatchString(f.Rel):
				m := legacyRE.FindStringSubmatch(f.Rel)
				assert.Equal(t, m[2], f.AgentID)
				assert.Equal(t, mains[f.SessionID], m[1], "%s: beside its session's main transcript", f.Rel)
				assert.Contains(t, f.Lines[0].Text, `"sessionId":"`+f.SessionID+`"`, "a legacy file's lines name its session")
			default:
				t.Fatalf("%s: unexpected path %s", name, f.Rel)
			}
		}
		for _, s := range c.Side {
			m := metaRE.FindStringSubmatch(s.Rel)
			require.NotNil(t, m, s.Rel)
			assert.Contains(t, rels, m[1]+".jsonl", "%s: a sidecar beside its transcript", s.Rel)
			var meta map[string]string
			require.NoError(t, json.Unmarshal(s.Data, &meta))
			assert.NotEmpty(t, meta["agentType"])
			assert.NotEmpty(t, meta["description"])
		}
		for rel := range rels {
			if subagentRE.MatchString(rel) {
				assert.True(t, slices.ContainsFunc(c.Side, func(s sample.SideFile) bool { return s.Rel == strings.TrimSuffix(rel, ".jsonl")+".meta.json" }), rel)
			}
		}
	}
}

func assertV4(t *testing.T, s string) {
	t.Helper()
	u, err := uuid.Parse(s)
	require.NoError(t, err, s)
	assert.Equal(t, uuid.Version(4), u.Version(), s)
	assert.Equal(t, s, u.String())
}

func TestProjectName(t *testing.T) {
	assert.Equal(t, "-home-dev-my-app", project("/home/dev/my_app"))
	assert.Equal(t, "-Users-mika-code-dashboard-web", project("/Users/mika/code/dashboard-web"))
}

var convTypes = []string{TypeUser, TypeAssistant, TypeSystem, TypeProgress, TypeAttachment}

// TestLineShape: key order, types, times, sizes, as the truth says.
func TestLineShape(t *testing.T) {
	for name, c := range testCorpora(t) {
		var first time.Time
		for _, f := range c.Files {
			var last time.Time
			for _, l := range f.Lines {
				where := name + " " + f.Rel + " " + l.Text[:min(100, len(l.Text))]
				assert.Equal(t, int64(-1), l.Seq, where)
				if l.Corrupt {
					assert.Empty(t, l.Type, where)
					var m map[string]any
					if json.Unmarshal([]byte(l.Text), &m) == nil {
						_, typed := m["type"].(string)
						assert.False(t, typed, "%s: a corrupt object has no string type", where)
					}
					continue
				}
				keys, m := decodeOrdered(t, l.Text)
				assert.Equal(t, l.Type, m["type"], where)
				if isCapture(f) {
					assert.Equal(t, "type", keys[0], where)
					assert.Equal(t, f.SessionID, m["session_id"], where)
					assert.NotContains(t, m, "timestamp", "%s: stream-json has no times", where)
				} else if slices.Contains(convTypes, l.Type) {
					require.Equal(t, "parentUuid", keys[0], where)
					assert.Equal(t, []string{"uuid", "timestamp"}, keys[slices.Index(keys, "uuid"):][:2], where)
					assert.Less(t, slices.Index(keys, "type"), slices.Index(keys, "uuid"), where)
				} else {
					assert.Equal(t, "type", keys[0], where)
				}
				if ts, ok := m["timestamp"].(string); ok {
					at, err := time.Parse(time.RFC3339Nano, ts)
					require.NoError(t, err, where)
					assert.Equal(t, at.UTC().Format(tsLayout), ts)
					assert.False(t, at.Before(last), "%s: time goes back", where)
					last = at
					if first.IsZero() || at.Before(first) {
						first = at
					}
					assert.Less(t, at.Sub(first), 100*time.Minute, where)
				}
				assert.Less(t, len(l.Text), 16<<10, where)
			}
		}
	}
}

// decodeOrdered returns an object line's top-level keys in order and its
// members.
func decodeOrdered(t *testing.T, line string) ([]string, map[string]any) {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(line))
	tok, err := dec.Token()
	require.NoError(t, err, line)
	require.Equal(t, json.Delim('{'), tok)
	var keys []string
	for dec.More() {
		k, err := dec.Token()
		require.NoError(t, err)
		keys = append(keys, k.(string))
		var skip json.RawMessage
		require.NoError(t, dec.Decode(&skip))
	}
	var m map[string]any
	require.NoError(t, json.Unmarshal([]byte(line), &m))
	return keys, m
}

// TestTruthConsistent: what the truth says of each line agrees with
// itself and with the line's bytes.
func TestTruthConsistent(t *testing.T) {
	table := pricing.Default()
	for name, c := range testCorpora(t) {
		for _, f := range c.Files {
			for _, l := range f.Lines {
				where := name + " " + f.Rel + " " + l.Text[:min(120, len(l.Text))]
				assert.False(t, l.Valid && l.Corrupt, where)
				assert.Equal(t, l.Corrupt, slices.Contains(l.Expect, AnnCorrupt), where)
				assert.Equal(t, !l.Valid && !l.Corrupt, slices.Contains(l.Expect, AnnSchemaInvalid) || slices.Contains(l.Expect, AnnUnknownType), where)
				if l.Corrupt {
					assert.Empty(t, l.State, where)
				} else {
					assert.Contains(t, []string{StateIdle, StateActing, StateThinking}, l.State, where)
				}
				assert.LessOrEqual(t, len(l.Expect), 4, "%s: at most four annotations", where)
				if l.Counted {
					assert.Contains(t, []string{TypeAssistant, TypeStreamEvent, TypeResult}, l.Type, where)
					assert.True(t, l.Valid, where)
					require.NotEmpty(t, l.Model, where)
					_, ok := table.Lookup("", l.Model)
					assert.True(t, ok, "%s: %s is priced", where, l.Model)
					assert.Positive(t, l.PromptTokens+l.CompletionTokens, where)
					assert.LessOrEqual(t, l.CacheReadTokens+l.CacheWriteTokens, l.PromptTokens, where)
					assert.LessOrEqual(t, l.CacheWrite1hTokens, l.CacheWriteTokens, where)
				} else if l.Bill == "" { // a copy counted elsewhere holds what it ships when it counts
					assert.Zero(t, l.PromptTokens+l.CompletionTokens+l.CacheReadTokens+l.CacheWriteTokens+l.CacheWrite1hTokens, "%s: tokens only where shipped", where)
				}
				if l.Type == TypeAssistant && !l.Corrupt {
					_, m := decodeOrdered(t, l.Text)
					msg := m["message"].(map[string]any)
					switch model, _ := msg["model"].(string); {
					case model == SyntheticModel:
						assert.Empty(t, l.Model, where)
						assert.False(t, l.Counted, where)
					default:
						assert.Equal(t, model, l.Model, where)
					}
				} else if !isUsageEvent(l.Text) && !l.Counted {
					assert.Empty(t, l.Model, where)
				}
			}
		}
		assertTokensByModel(t, c)
	}
}

func assertTokensByModel(t *testing.T, c *sample.Corpus) {
	sums := map[string][2]int64{}
	for _, f := range c.Files {
		for _, l := range f.Lines {
			if l.Counted {
				s := sums[l.Model]
				s[0] += l.PromptTokens
				s[1] += l.CompletionTokens
				sums[l.Model] = s
			}
		}
	}
	assert.Equal(t, sums, c.TokensByModel())
}

// lineUsage is an assistant line's message as written.
type lineUsage struct {
	SessionID string `json:"sessionId"`
	RequestID string `json:"requestId"`
	Message   struct {
		ID    string `json:"id"`
		Model string `json:"model"`
		Usage struct {
			Input  int64 `json:"input_tokens"`
			Output int64 `json:"output_tokens"`
			CW     int64 `json:"cache_creation_input_tokens"`
			CR     int64 `json:"cache_read_input_tokens"`
			Split  struct {
				OneHour int64 `json:"ephemeral_1h_input_tokens"`
			} `json:"cache_creation"`
		} `json:"usage"`
	} `json:"message"`
}

// TestDeltasSumToMax: per file and message.id, the tokens the truth
// ships add up to the largest value of each counter on the response's
// countable lines (valid, not <synthetic>, not a copy or a replay).
func TestDeltasSumToMax(t *testing.T) {
	for name, c := range testCorpora(t) {
		for _, f := range c.Files {
			if isCapture(f) {
				continue // TestCaptureDeltasSumToFinal
			}
			shipped := map[string][5]int64{}
			largest := map[string][5]int64{}
			for _, l := range f.Lines {
				if l.Type != TypeAssistant || !l.Valid {
					continue
				}
				var u lineUsage
				require.NoError(t, json.Unmarshal([]byte(l.Text), &u))
				if u.Message.Model == SyntheticModel || slices.Contains(l.Expect, AnnSessionIDMismatch) || slices.Contains(l.Expect, AnnResponseReplayed) {
					assert.False(t, l.Counted)
					continue
				}
				id, mu := u.Message.ID, u.Message.Usage
				now := [5]int64{mu.Input + mu.CW + mu.CR, mu.Output, mu.CR, mu.CW, mu.Split.OneHour}
				mx := largest[id]
				for i := range mx {
					mx[i] = max(mx[i], now[i])
				}
				largest[id] = mx
				s := shipped[id]
				s[0] += l.PromptTokens
				s[1] += l.CompletionTokens
				s[2] += l.CacheReadTokens
				s[3] += l.CacheWriteTokens
				s[4] += l.CacheWrite1hTokens
				shipped[id] = s
			}
			assert.Equal(t, largest, shipped, "%s %s", name, f.Rel)
		}
	}
}

// TestPromptsStayUnder200k: ccusage tiers each counter past 200 000
// tokens; no prompt gets there.
func TestPromptsStayUnder200k(t *testing.T) {
	for name, c := range testCorpora(t) {
		for _, f := range c.Files {
			for _, l := range f.Lines {
				if l.Type != TypeAssistant || l.Corrupt {
					continue
				}
				var u lineUsage
				_ = json.Unmarshal([]byte(l.Text), &u)
				mu := u.Message.Usage
				assert.Less(t, mu.Input+mu.CW+mu.CR, int64(200_000), "%s %s", name, f.Rel)
			}
		}
	}
}

// TestCleanSessions: without faults, and from session MinFaultSessions
// on, nothing is annotated, every line is valid and no file is torn.
func TestCleanSessions(t *testing.T) {
	all := testCorpora(t)
	check := func(name string, sessions [][]sample.File) {
		for _, files := range sessions {
			for _, f := range files {
				assert.Nil(t, f.PartialTail, "%s %s", name, f.Rel)
				for _, l := range f.Lines {
					assert.True(t, l.Valid, "%s %s %s", name, f.Rel, l.Text)
					assert.Empty(t, l.Expect, "%s %s %s", name, f.Rel, l.Text)
				}
			}
		}
	}
	for _, name := range []string{"clean", "clean-big", "one"} {
		check(name, sessionsOf(all[name]))
	}
	for _, name := range []string{"fixture", "seed-3", "one-model"} {
		check(name, sessionsOf(all[name])[MinFaultSessions:])
	}
}

// TestVariety: a large clean corpus holds every era, model, cache mode
// and feature the package documents.
func TestVariety(t *testing.T) {
	c := testCorpora(t)["clean-big"]
	text := func(f sample.File) string { return string(f.Data) }
	versions, models := map[string]bool{}, map[string]bool{}
	features := map[string]int{}
	count := func(feature string, ok bool) {
		if ok {
			features[feature]++
		}
	}
	for _, f := range c.Files {
		d := text(f)
		for _, l := range f.Lines {
			if l.Counted {
				models[l.Model] = true
			}
			if l.Type == TypeAssistant && !isCapture(f) {
				_, m := decodeOrdered(t, l.Text)
				versions[m["version"].(string)] = true
			}
		}
		count("capture", isCapture(f))
		count("legacy agent file", legacyRE.MatchString(f.Rel))
		count("subagent file", subagentRE.MatchString(f.Rel))
		count("agent_progress", strings.Contains(d, `"type":"agent_progress"`))
		count("bash_progress", strings.Contains(d, `"type":"bash_progress"`))
		count("hook_progress", strings.Contains(d, `"type":"hook_progress"`))
		count("1h cache", strings.Contains(d, `"ephemeral_1h_input_tokens":`) && !strings.Contains(d, `"ephemeral_1h_input_tokens":0,`))
		count("parallel tools", parallelTools(t, f))
		count("interruption", strings.Contains(d, InterruptMarker+"]"))
		count("api error", strings.Contains(d, `"isApiErrorMessage":true`))
		count("model switch", strings.Contains(d, "<command-name>/model</command-name>"))
		count("compaction", strings.Contains(d, `"subtype":"compact_boundary"`))
		count("queue", strings.Contains(d, `"type":"queue-operation"`))
		count("title", strings.Contains(d, `"type":"custom-title"`))
		count("snapshot", strings.Contains(d, `"type":"file-history-snapshot"`))
		count("attachment", strings.Contains(d, `"type":"attachment"`))
		count("end_turn", strings.Contains(d, `"stop_reason":"end_turn"`))
		count("tool_use stop", strings.Contains(d, `"stop_reason":"tool_use"`))
		count("resume upgrade", strings.Count(d, `"version":"2.1.9`) > 0 && strings.Contains(d, `"version":"2.1.1`))
	}
	for _, feat := range []string{"capture", "parallel tools", "legacy agent file", "subagent file", "agent_progress", "bash_progress", "hook_progress", "1h cache",
		"interruption", "api error", "model switch", "compaction", "queue", "title", "snapshot", "attachment", "end_turn", "tool_use stop"} {
		assert.Positive(t, features[feat], feat)
	}
	for _, m := range DefaultModels {
		assert.True(t, models[m], m)
	}
	for _, vs := range [][]string{versionsLegacy, versionsOld, versionsNew} {
		assert.True(t, slices.ContainsFunc(vs, func(v string) bool { return versions[v] }), "%v", vs)
	}
}

// parallelTools reports whether a response of f has several tool_use
// lines.
func parallelTools(t *testing.T, f sample.File) bool {
	uses := map[string]int{}
	for _, l := range f.Lines {
		if l.Type == TypeAssistant && strings.Contains(l.Text, `"type":"tool_use"`) {
			var u lineUsage
			require.NoError(t, json.Unmarshal([]byte(l.Text), &u))
			uses[u.Message.ID]++
			if uses[u.Message.ID] > 1 {
				return true
			}
		}
	}
	return false
}

// TestOutputSnapshots: a CLI before 2.1.97 writes growing snapshots of
// output_tokens within a response, a later one the same count on every
// line; input and cache counters are the same on every line.
func TestOutputSnapshots(t *testing.T) {
	c := testCorpora(t)["clean-big"]
	growing, equal := 0, 0
	for _, f := range c.Files {
		byID := map[string][]lineUsage{}
		var order []string
		version := map[string]string{}
		for _, l := range f.Lines {
			if l.Type != TypeAssistant || !l.Counted && !strings.Contains(l.Text, `"requestId"`) {
				continue
			}
			var u lineUsage
			require.NoError(t, json.Unmarshal([]byte(l.Text), &u))
			_, m := decodeOrdered(t, l.Text)
			if u.Message.Model == SyntheticModel {
				continue
			}
			if _, ok := byID[u.Message.ID]; !ok {
				order = append(order, u.Message.ID)
			}
			byID[u.Message.ID] = append(byID[u.Message.ID], u)
			version[u.Message.ID] = m["version"].(string)
		}
		for _, id := range order {
			lines := byID[id]
			if len(lines) < 2 {
				continue
			}
			old := versionBefore(version[id], 2, 1, 97)
			for i := 1; i < len(lines); i++ {
				a, b := lines[i-1].Message.Usage, lines[i].Message.Usage
				assert.Equal(t, [3]int64{a.Input, a.CW, a.CR}, [3]int64{b.Input, b.CW, b.CR}, "%s %s", f.Rel, id)
				if old {
					assert.Less(t, a.Output, b.Output, "%s %s: snapshots grow", f.Rel, id)
				} else {
					assert.Equal(t, a.Output, b.Output, "%s %s: final usage on every line", f.Rel, id)
				}
			}
			if old {
				growing++
			} else {
				equal++
			}
		}
	}
	assert.Positive(t, growing)
	assert.Positive(t, equal)
}

// TestStateOfTheDocumentExample: a prompt, a text line, a tool_use line
// of the same response and its result derive thinking, idle, acting,
// thinking (docs/formats/claude-code.md, Examples).
func TestStateOfTheDocumentExample(t *testing.T) {
	x := newRNG(1, 1)
	s := newSession(x, 9, eraOld, DefaultModels[0], DefaultModels, time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC))
	s.snapshots = false
	tr := s.main
	tr.ask("the login test fails, fix it")
	c := s.bash("go test ./auth/...", "Run the auth tests", "--- FAIL: TestLogin (0.01s)", true)
	c.progress = nil
	resp := tr.respond([]block{{kind: blockText, text: "Let me run the test first.", out: 8}, c.use()}, respOpts{})
	tr.answer(resp.calls)
	f, _, err := render(s, tr, nil)
	require.NoError(t, err)
	var states []string
	for _, l := range f.Lines {
		states = append(states, l.State)
	}
	assert.Equal(t, []string{StateThinking, StateIdle, StateActing, StateThinking}, states)
	assert.True(t, f.Lines[1].Counted)
	assert.Equal(t, f.Lines[1].PromptTokens, f.Lines[1].CacheReadTokens+f.Lines[1].CacheWriteTokens+resp.u.in)
	assert.True(t, f.Lines[2].Counted, "the grown output")
	assert.Zero(t, f.Lines[2].PromptTokens)
	assert.Equal(t, resp.outs[1]-resp.outs[0], f.Lines[2].CompletionTokens)
}

func TestVersionBefore(t *testing.T) {
	assert.True(t, versionBefore("2.1.96", 2, 1, 97))
	assert.False(t, versionBefore("2.1.97", 2, 1, 97))
	assert.False(t, versionBefore("2.1.110", 2, 1, 97))
	assert.True(t, versionBefore("2.0.76", 2, 1, 0))
	assert.False(t, versionBefore("3.0.0", 2, 1, 97))
}

// TestCorpusSpan: every time is within 100 minutes after Start, so the
// default start (two hours ago) keeps every line in the past.
func TestCorpusSpan(t *testing.T) {
	for _, cfg := range []Config{FixtureConfig(), testConfig(3, MinFaultSessions, true), testConfig(4, 300, true), testConfig(6, 40, false)} {
		c, err := Generate(cfg)
		require.NoError(t, err)
		start := cfg.Start.UTC()
		first := time.Time{}
		for _, f := range c.Files {
			for _, l := range f.Lines {
				var m struct{ Timestamp string }
				if json.Unmarshal([]byte(l.Text), &m) != nil || m.Timestamp == "" {
					continue
				}
				at, err := time.Parse(time.RFC3339Nano, m.Timestamp)
				require.NoError(t, err)
				if first.IsZero() {
					first = at
				}
				assert.False(t, at.Before(start), f.Rel)
				assert.Less(t, at.Sub(start), 100*time.Minute, f.Rel)
			}
		}
		if !isCapture(c.Files[0]) { // a capture has no times
			assert.Less(t, first.Sub(start), 10*time.Second, "the corpus starts at Start")
		}
	}
}
