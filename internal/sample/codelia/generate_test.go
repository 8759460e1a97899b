package codelia

import (
	"bytes"
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/journalship/journalship/internal/sample"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func testConfig(seed int64, runs int, faults bool) Config {
	return Config{Seed: seed, Runs: runs, Start: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC), Models: DefaultModels, Faults: faults}
}

// testCorpora are the corpora the property tests run on: the fixture,
// other seeds, no faults, many runs, one model, a start just before
// midnight UTC (runs on two dates).
func testCorpora(t *testing.T) map[string]*sample.Corpus {
	t.Helper()
	cfgs := map[string]Config{
		"fixture":   FixtureConfig(),
		"seed7":     testConfig(7, MinFaultRuns, true),
		"seed-3":    testConfig(-3, 14, true),
		"clean":     testConfig(7, 8, false),
		"clean-big": testConfig(11, 60, false),
		"one-run":   testConfig(5, 1, false),
		"one-model": {Seed: 2, Runs: 8, Start: time.Date(2025, 12, 31, 23, 59, 59, 999_000_000, time.UTC), Models: []string{"claude-haiku-4-5-20251001"}, Faults: true},
		"midnight":  {Seed: 9, Runs: 20, Start: time.Date(2026, 6, 30, 23, 40, 0, 0, time.UTC), Models: DefaultModels, Faults: true},
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
	for _, cfg := range []Config{FixtureConfig(), testConfig(42, 9, false), testConfig(-8, 12, true)} {
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

func TestFileCount(t *testing.T) {
	for name, c := range testCorpora(t) {
		for _, f := range c.Files {
			assert.Equal(t, FormatName, f.Format, name)
		}
		assert.NotEmpty(t, c.Files, name)
	}
	c, err := Generate(testConfig(3, 17, true))
	require.NoError(t, err)
	assert.Len(t, c.Files, 17, "one file per run")
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
				b.WriteString(l.Text)
				b.WriteByte('\n')
			}
			b.Write(f.PartialTail)
			require.Equal(t, string(f.Data), b.String(), "%s %s", name, f.Rel)
			if f.PartialTail != nil {
				assert.NotContains(t, string(f.PartialTail), "\n")
				assert.False(t, json.Valid(f.PartialTail), "a partial line is not JSON")
			}
		}
	}
}

var relPattern = regexp.MustCompile(`^sessions/(\d{4})/(\d{2})/(\d{2})/([0-9a-f-]{36})\.jsonl$`)

// TestFileIdentity: paths, ids and the fields Codelia's paths do not carry.
func TestFileIdentity(t *testing.T) {
	for name, c := range testCorpora(t) {
		seen := map[string]bool{}
		dates := map[string]bool{}
		for _, f := range c.Files {
			m := relPattern.FindStringSubmatch(f.Rel)
			require.NotNil(t, m, "%s: %s", name, f.Rel)
			dates[m[1]+m[2]+m[3]] = true
			require.False(t, seen[f.Rel], "%s: %s twice", name, f.Rel)
			seen[f.Rel] = true
			assertV4(t, m[4])
			assertV4(t, f.RunID)
			if f.SessionID != "" {
				assertV4(t, f.SessionID)
			}
			assert.Empty(t, f.JobID+f.Pod+f.AgentID, "%s %s: Codelia ships no job, pod or agent", name, f.Rel)
			h, ok := firstHeader(f)
			if !ok {
				continue // the header was torn
			}
			assert.Equal(t, f.RunID, h["run_id"])
			if f.SessionID != "" {
				assert.Equal(t, f.SessionID, h["session_id"])
			}
			if misfiled(f) {
				continue
			}
			assert.Equal(t, m[4], f.RunID, "%s: the file is named after its run", f.Rel)
			started, err := time.Parse(tsLayout, h["started_at"].(string))
			require.NoError(t, err)
			assert.Equal(t, started.UTC().Format("2006/01/02"), m[1]+"/"+m[2]+"/"+m[3], "%s: dated by started_at", f.Rel)
		}
		if name == "midnight" {
			assert.Greater(t, len(dates), 2, "runs on both sides of midnight, and the misfiled one")
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

// firstHeader decodes the file's first line when it is a header.
func firstHeader(f sample.File) (map[string]any, bool) {
	if len(f.Lines) == 0 || f.Lines[0].Type != typeHeader {
		return nil, false
	}
	var h map[string]any
	if json.Unmarshal([]byte(f.Lines[0].Text), &h) != nil {
		return nil, false
	}
	return h, true
}

func misfiled(f sample.File) bool {
	return len(f.Lines) > 0 && slices.ContainsFunc(f.Lines[0].Expect, func(e string) bool {
		return strings.HasPrefix(e, AnnFileNameMismatch+":")
	})
}

// TestRecordShape: key order, times, the truth's types and seqs against
// the bytes.
func TestRecordShape(t *testing.T) {
	for name, c := range testCorpora(t) {
		for _, f := range c.Files {
			var last time.Time
			for _, l := range f.Lines {
				where := name + " " + f.Rel + " " + l.Text[:min(80, len(l.Text))]
				if l.Corrupt {
					assert.False(t, json.Valid([]byte(l.Text)), where)
					assert.Equal(t, -1, int(l.Seq), where)
					assert.Empty(t, l.Type, where)
					continue
				}
				keys, m := decodeOrdered(t, l.Text)
				require.Equal(t, "type", keys[0], where)
				assert.Equal(t, l.Type, m["type"], where)
				if l.Type == typeHeader {
					assert.Equal(t, []string{"type", "schema_version", "run_id"}, keys[:3], where)
				} else {
					assert.Equal(t, "run_id", keys[1], where)
					assert.Contains(t, keys[2:4], "ts", where)
				}
				ts := m["ts"]
				if l.Type == typeHeader {
					ts = m["started_at"]
				}
				at, err := time.Parse(tsLayout, ts.(string))
				require.NoError(t, err, where)
				assert.False(t, at.Before(last), "%s: time never decreases", where)
				last = at
				if seq, ok := m["seq"].(float64); ok {
					assert.Equal(t, int64(seq), l.Seq, where)
				} else {
					assert.Equal(t, int64(-1), l.Seq, where)
				}
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
	require.NoError(t, err)
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

// TestCorpusSpan: every time is within 75 minutes of Start, so the
// default start (two hours ago) keeps every line in the past.
func TestCorpusSpan(t *testing.T) {
	for _, cfg := range []Config{FixtureConfig(), testConfig(3, MinFaultRuns, true), testConfig(4, 300, true), testConfig(5, MaxRuns/20, false)} {
		c, err := Generate(cfg)
		require.NoError(t, err)
		start := cfg.Start.UTC()
		first := true
		for _, f := range c.Files {
			for _, l := range f.Lines {
				at, ok := lineTime(l.Text)
				if !ok {
					continue
				}
				if first {
					assert.Equal(t, start, at, "the first run starts at Start")
					first = false
				}
				assert.False(t, at.Before(start), f.Rel)
				assert.Less(t, at.Sub(start), 75*time.Minute, f.Rel)
			}
		}
		for _, s := range c.Side {
			var doc map[string]any
			require.NoError(t, json.Unmarshal(s.Data, &doc))
			at, err := time.Parse(tsLayout, doc["updated_at"].(string))
			require.NoError(t, err)
			assert.Less(t, at.Sub(start), 75*time.Minute, s.Rel)
		}
	}
}

var tsPattern = regexp.MustCompile(`"(?:ts|started_at)":"([^"]+)"`)

func lineTime(text string) (time.Time, bool) {
	m := tsPattern.FindStringSubmatch(text)
	if m == nil {
		return time.Time{}, false
	}
	at, err := time.Parse(tsLayout, m[1])
	return at, err == nil
}

// TestTruthConsistent: what the truth says of each line agrees with
// itself.
func TestTruthConsistent(t *testing.T) {
	for name, c := range testCorpora(t) {
		for _, f := range c.Files {
			for _, l := range f.Lines {
				where := name + " " + f.Rel + " " + l.Type
				assert.False(t, l.Valid && l.Corrupt, where)
				assert.Equal(t, l.Corrupt, slices.Contains(l.Expect, AnnCorrupt), where)
				assert.Equal(t, !l.Valid && !l.Corrupt, slices.Contains(l.Expect, AnnSchemaInvalid), where)
				if l.Counted {
					assert.Equal(t, typeLLMResponse, l.Type, where)
					assert.True(t, l.Valid, where)
					assert.NotEmpty(t, l.Model, where)
					assert.Positive(t, l.PromptTokens, where)
					assert.Positive(t, l.CompletionTokens, where)
				} else {
					assert.Zero(t, l.PromptTokens+l.CompletionTokens+l.CacheReadTokens+l.CacheWriteTokens, "%s: tokens only where shipped", where)
				}
				switch l.Type {
				case typeLLMRequest, typeLLMResponse:
					assert.NotEmpty(t, l.Model, where)
					assert.GreaterOrEqual(t, l.Seq, int64(0), where)
				case typeHeader:
					assert.NotEmpty(t, l.Model, "%s: a header states the run's model", where)
				default:
					assert.Empty(t, l.Model, "%s: model is shipped on headers and llm.* lines only", where)
				}
				for _, e := range l.Expect {
					assert.NotContains(t, []string{"timestamp_fallback", "timestamp_rewritten"}, e, where)
				}
			}
		}
	}
}

// TestCleanRuns: without faults, and beyond the fault runs, runs have no
// annotations, every line is valid, and each run ends with run.end.
func TestCleanRuns(t *testing.T) {
	check := func(name string, files []sample.File) {
		for _, f := range files {
			require.NotEmpty(t, f.Lines)
			assert.Nil(t, f.PartialTail, "%s %s", name, f.Rel)
			assert.Equal(t, typeHeader, f.Lines[0].Type)
			assert.Equal(t, typeRunStart, f.Lines[1].Type)
			last := f.Lines[len(f.Lines)-1]
			assert.Equal(t, typeRunEnd, last.Type, "%s %s", name, f.Rel)
			assert.Contains(t, knownOutcomes, f.EndReason)
			assert.Equal(t, f.EndReason, last.State)
			for _, l := range f.Lines {
				assert.True(t, l.Valid, "%s %s %s", name, f.Rel, l.Text)
				assert.Empty(t, l.Expect, "%s %s %s", name, f.Rel, l.Text)
			}
		}
	}
	all := testCorpora(t)
	check("clean", all["clean"].Files)
	check("clean-big", all["clean-big"].Files)
	check("one-run", all["one-run"].Files)
	check("seed-3", all["seed-3"].Files[MinFaultRuns:])
	check("midnight", all["midnight"].Files[MinFaultRuns:])

	outcomes := map[string]int{}
	sessions := map[string]int{}
	for _, f := range all["clean-big"].Files {
		outcomes[f.EndReason]++
		sessions[f.SessionID]++
	}
	for _, o := range knownOutcomes {
		assert.Positive(t, outcomes[o], "some clean runs end %s", o)
	}
	assert.Positive(t, sessions[""], "some runs have no session")
	shared := 0
	for id, n := range sessions {
		if id != "" && n > 1 {
			shared++
		}
	}
	assert.Positive(t, shared, "some sessions have several runs")
}

// TestTokens: usage follows each provider's style, prompts grow within a
// run, and the sums by model are the Counted lines'.
func TestTokens(t *testing.T) {
	c, err := Generate(testConfig(21, 40, true))
	require.NoError(t, err)
	sums := map[string][2]int64{}
	cacheSums := map[string][2]int64{}
	for _, f := range c.Files {
		var prev int64
		for _, l := range f.Lines {
			if !l.Counted {
				continue
			}
			p := providerOf(l.Model)
			prompt := l.PromptTokens // the whole prompt, in every provider's style
			assert.LessOrEqual(t, l.CacheReadTokens+l.CacheWriteTokens, prompt, "cached tokens are part of the prompt")
			switch p.style {
			case exclusive:
				assert.Less(t, prompt-l.CacheReadTokens-l.CacheWriteTokens, int64(20), "Anthropic: few uncached tokens with automatic caching")
				assert.Positive(t, l.CacheReadTokens+l.CacheWriteTokens)
			default:
				assert.Zero(t, l.CacheWriteTokens, "%s writes no cache", p.name)
			}
			assert.Greater(t, prompt, int64(2000), "a system prompt and tool definitions")
			assert.Less(t, prompt, int64(60000))
			assert.GreaterOrEqual(t, prompt, prev-200, "prompts grow within a run (a continuation may count a little less)")
			prev = prompt
			s := sums[l.Model]
			s[0] += l.PromptTokens
			s[1] += l.CompletionTokens
			sums[l.Model] = s
			if l.CacheReadTokens+l.CacheWriteTokens > 0 {
				cs := cacheSums[l.Model]
				cs[0] += l.CacheReadTokens
				cs[1] += l.CacheWriteTokens
				cacheSums[l.Model] = cs
			}
		}
	}
	assert.Equal(t, sums, c.TokensByModel())
	assert.Equal(t, cacheSums, c.CacheTokensByModel())
	for _, m := range DefaultModels {
		assert.Positive(t, sums[m][0], m)
	}
	assert.Positive(t, cacheSums[DefaultModels[0]][1], "Anthropic writes the cache")
}

// TestSideFiles: one snapshot per session, as the spec's SessionState,
// naming the session's last run.
func TestSideFiles(t *testing.T) {
	for name, c := range testCorpora(t) {
		runs := map[string][]sample.File{}
		for _, f := range c.Files {
			if f.SessionID != "" {
				runs[f.SessionID] = append(runs[f.SessionID], f)
			}
		}
		assert.Len(t, c.Side, len(runs), name)
		for _, s := range c.Side {
			require.True(t, strings.HasPrefix(s.Rel, "sessions/state/") && strings.HasSuffix(s.Rel, ".json"), s.Rel)
			keys, doc := decodeOrdered(t, string(bytes.TrimSpace(s.Data)))
			assert.Equal(t, []string{"schema_version", "session_id", "updated_at", "run_id", "invoke_seq", "messages"}, keys)
			id := doc["session_id"].(string)
			assert.Equal(t, "sessions/state/"+id+".json", s.Rel)
			files := runs[id]
			require.NotEmpty(t, files, "%s: %s has runs", name, s.Rel)
			lastRun := files[len(files)-1]
			assert.Equal(t, lastRun.RunID, doc["run_id"])
			assert.Equal(t, float64(lastRequestSeq(lastRun)), doc["invoke_seq"], "%s: the last invocation's seq", s.Rel)
			msgs := doc["messages"].([]any)
			assert.Equal(t, "system", msgs[0].(map[string]any)["role"])
			assert.GreaterOrEqual(t, len(msgs), 1+len(files))
		}
	}
}

// lastRequestSeq is the seq of a file's last llm.request line, or of the
// partial line when the run crashed while writing its response.
func lastRequestSeq(f sample.File) int64 {
	for i := len(f.Lines) - 1; i >= 0; i-- {
		if f.Lines[i].Type == typeLLMRequest {
			return f.Lines[i].Seq
		}
	}
	return -1
}
