package cortex

import (
	"bytes"
	"fmt"
	"path"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/journalship/journalship/internal/sample"
)

func testConfig(seed int64, jobs int, faults bool) Config {
	return Config{Seed: seed, Jobs: jobs, Start: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC), Models: DefaultModels, Faults: faults}
}

// corpora used by the property tests: the fixture, other seeds, no faults,
// more jobs than the fixed scenarios.
func testCorpora(t *testing.T) map[string]*sample.Corpus {
	t.Helper()
	cfgs := map[string]Config{
		"fixture":   FixtureConfig(),
		"seed7":     testConfig(7, 6, true),
		"seed-3":    testConfig(-3, 12, true),
		"clean":     testConfig(7, 6, false),
		"clean-big": testConfig(11, 40, false),
		"one-job":   testConfig(5, 1, false),
		"one-model": {Seed: 2, Jobs: 4, Start: time.Date(2025, 12, 31, 23, 59, 59, 999_000_000, time.UTC), Models: []string{"m"}, Faults: true},
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

func TestGenerateJobsAreIndependent(t *testing.T) {
	// 4 and 8 jobs are both spaced 3 minutes apart, and each job draws from
	// its own random stream: adding jobs leaves the first ones unchanged.
	small, err := Generate(testConfig(3, 4, true))
	require.NoError(t, err)
	big, err := Generate(testConfig(3, 8, true))
	require.NoError(t, err)
	require.Greater(t, len(big.Files), len(small.Files))
	assert.Equal(t, small.Files, big.Files[:len(small.Files)])
}

func TestGenerateInvalidConfig(t *testing.T) {
	cfg := testConfig(1, 2, true)
	c, err := Generate(cfg)
	assert.Nil(t, c)
	var ce *sample.ConfigError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, "Jobs", ce.Field)
}

func TestLinesMatchData(t *testing.T) {
	for name, c := range testCorpora(t) {
		for _, f := range c.Files {
			var rebuilt bytes.Buffer
			for _, l := range f.Lines {
				require.Equal(t, int64(rebuilt.Len()), l.Offset, "%s %s offset", name, f.Rel)
				require.Equal(t, l.Text, string(f.Data[l.Offset:l.Offset+int64(len(l.Text))]), "%s %s text", name, f.Rel)
				require.NotContains(t, l.Text, "\n")
				rebuilt.WriteString(l.Text + "\n")
			}
			rebuilt.Write(f.PartialTail)
			assert.Equal(t, f.Data, rebuilt.Bytes(), "%s %s: lines + tail == data", name, f.Rel)
			assert.NotContains(t, string(f.PartialTail), "\n", "partial tail has no newline")
			if len(f.PartialTail) == 0 {
				assert.Nil(t, f.PartialTail)
				assert.True(t, bytes.HasSuffix(f.Data, []byte("\n")))
			}
			assert.True(t, utf8.Valid([]byte(strings.Join(lineTexts(f), ""))), "complete lines are UTF-8")
		}
	}
}

func lineTexts(f sample.File) []string {
	out := make([]string, len(f.Lines))
	for i, l := range f.Lines {
		out[i] = l.Text
	}
	return out
}

// TestTruthFlags compares Valid, Corrupt, Type, Seq and the structural
// annotations with the independent checker, and the seq annotations with
// seqs read back from the text.
func TestTruthFlags(t *testing.T) {
	for name, c := range testCorpora(t) {
		for _, f := range c.Files {
			highest := int64(-1)
			for _, l := range f.Lines {
				v := check(l.Text)
				where := fmt.Sprintf("%s %s seq %d: %.120s", name, f.Rel, l.Seq, l.Text)
				assert.Equal(t, v.corrupt, l.Corrupt, where)
				assert.Equal(t, v.valid(), l.Valid, "%s (checker: %s)", where, v.invalid)
				assert.Equal(t, v.typ, l.Type, where)
				assert.Equal(t, v.seq, l.Seq, where)
				var want []string
				switch {
				case v.corrupt:
					want = append(want, sample.AnnCorrupt)
				case v.unknown:
					want = append(want, sample.AnnUnknownType)
				case v.invalid != "":
					want = append(want, sample.AnnSchemaInvalid)
				}
				if !v.corrupt && v.seq >= 0 {
					switch {
					case v.seq <= highest:
						want = append(want, sample.AnnSeqRegression)
					case v.seq > highest+1:
						want = append(want, fmt.Sprintf("seq_gap:%d-%d", highest+1, v.seq-1))
					}
					highest = max(highest, v.seq)
				}
				assert.Equal(t, want, l.Expect, where)
			}
		}
	}
}

var (
	keyOrderRe = regexp.MustCompile(`^\{"type":"[A-Z_]+","timestamp":"[^"]+","job_id":"[^"]+","session_id":"[^"]+","seq":\d+[,}]`)
	tsRe       = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`)
	relRe      = regexp.MustCompile(`^([0-9a-f-]{36})/session_(\d{8}T\d{6}Z)_(agent-worker-[a-z0-9]{5}-[a-z0-9]{5})\.jsonl$`)
)

func TestFormat(t *testing.T) {
	for name, c := range testCorpora(t) {
		for _, f := range c.Files {
			m := relRe.FindStringSubmatch(f.Rel)
			require.NotNil(t, m, "%s: file name %s", name, f.Rel)
			assert.Equal(t, f.JobID, m[1])
			assert.Equal(t, f.Pod, m[3])
			var last time.Time
			for i, l := range f.Lines {
				if l.Corrupt {
					continue
				}
				v := check(l.Text)
				assert.Regexp(t, keyOrderRe, l.Text, "key order")
				ts, _ := v.obj["timestamp"].(string)
				require.Regexp(t, tsRe, ts)
				tm, err := time.Parse(timestampLayout, ts)
				require.NoError(t, err)
				assert.False(t, tm.Before(last), "%s %s: timestamps never decrease", name, f.Rel)
				last = tm
				assert.Equal(t, f.JobID, v.obj["job_id"])
				assert.Equal(t, f.SessionID, v.obj["session_id"])
				if i == 0 {
					assert.Equal(t, m[2], tm.Format("20060102T150405Z"), "file name is the SESSION_START time")
				}
			}
			for _, id := range []string{f.JobID, f.SessionID, f.AgentID} {
				u, err := uuid.Parse(id)
				require.NoError(t, err)
				assert.Equal(t, uuid.Version(7), u.Version(), id)
				assert.Equal(t, uuid.RFC4122, u.Variant(), id)
			}
		}
	}
}

func TestFirstEventIsStart(t *testing.T) {
	cfg := FixtureConfig()
	c, err := Generate(cfg)
	require.NoError(t, err)
	var first time.Time
	for _, f := range c.Files {
		tm, ok := sample.TimeAt(f.Lines[0].Text, `"timestamp":"`)
		require.True(t, ok)
		if first.IsZero() || tm.Before(first) {
			first = tm
		}
	}
	assert.Equal(t, cfg.Start, first)
}

func TestTokensByModel(t *testing.T) {
	for name, c := range testCorpora(t) {
		want := map[string][2]int64{}
		for _, f := range c.Files {
			stepModel := map[int64]string{}
			for _, l := range f.Lines {
				v := check(l.Text)
				step, _ := asInt(v.obj["step_index"])
				switch v.typ {
				case TypeLLMRequest:
					stepModel[step], _ = v.obj["model"].(string)
					assert.Equal(t, stepModel[step], l.Model)
				case TypeLLMResponse:
					p, _ := asInt(v.obj["prompt_tokens"])
					cp, _ := asInt(v.obj["completion_tokens"])
					assert.Equal(t, stepModel[step], l.Model, "response model is its request's")
					assert.Equal(t, p, l.PromptTokens)
					assert.Equal(t, cp, l.CompletionTokens)
					if v.valid() {
						w := want[stepModel[step]]
						want[stepModel[step]] = [2]int64{w[0] + p, w[1] + cp}
					}
				default:
					assert.Zero(t, l.PromptTokens+l.CompletionTokens)
				}
			}
		}
		assert.Equal(t, want, c.TokensByModel(), name)
	}
	assert.Empty(t, (*sample.Corpus)(nil).TokensByModel())
}

func TestTokenCountsRealistic(t *testing.T) {
	c, err := Generate(testConfig(9, 20, false))
	require.NoError(t, err)
	tokens := c.TokensByModel()
	assert.Len(t, tokens, len(DefaultModels), "every model is used")
	for _, f := range c.Files {
		for _, l := range f.Lines {
			if l.Type == TypeLLMResponse {
				assert.GreaterOrEqual(t, l.PromptTokens, int64(9000))
				assert.Less(t, l.PromptTokens, int64(200000))
				assert.GreaterOrEqual(t, l.CompletionTokens, int64(5))
				assert.LessOrEqual(t, l.CompletionTokens, int64(maxTokensParam))
			}
		}
	}
}

func TestCleanCorpusFollowsProtocol(t *testing.T) {
	c, err := Generate(testConfig(11, 40, false))
	require.NoError(t, err)
	reasons := map[string]int{}
	for _, f := range c.Files {
		require.NotEmpty(t, f.EndReason, f.Rel)
		require.Nil(t, f.PartialTail)
		reasons[f.EndReason]++
		checkProtocol(t, f)
	}
	for _, r := range []string{EndCompleted, EndFailed, EndCancelled, EndApprovalPause} {
		assert.Positive(t, reasons[r], r)
	}
}

// checkProtocol checks the write protocol on a clean session file.
func checkProtocol(t *testing.T, f sample.File) {
	t.Helper()
	vs := make([]verdict, len(f.Lines))
	for i, l := range f.Lines {
		vs[i] = check(l.Text)
		require.True(t, vs[i].valid(), "%s line %d: %s", f.Rel, i, vs[i].invalid)
		require.Empty(t, l.Expect)
		require.Equal(t, int64(i), vs[i].seq, "%s: seqs are 0, 1, 2, ...", f.Rel)
	}
	require.GreaterOrEqual(t, len(vs), 4)
	assert.Equal(t, TypeSessionStart, vs[0].typ)
	assert.Equal(t, f.Pod, vs[0].obj["pod_name"])
	assert.Equal(t, f.AgentID, vs[0].obj["agent_id"])
	assert.Equal(t, TypeCheckpointLoaded, vs[1].typ)
	end := vs[len(vs)-1]
	assert.Equal(t, TypeSessionEnd, end.typ)
	assert.Equal(t, f.EndReason, end.obj["reason"])
	total, _ := asInt(end.obj["total_events"])
	assert.Equal(t, int64(len(vs)), total)
	for i := 2; i < len(vs); i++ {
		prev, cur := vs[i-1], vs[i]
		switch cur.typ {
		case TypeSessionStart, TypeCheckpointLoaded:
			t.Errorf("%s line %d: %s after the start", f.Rel, i, cur.typ)
		case TypeLLMResponse:
			require.Equal(t, TypeLLMRequest, prev.typ, "%s line %d", f.Rel, i)
			assert.Equal(t, prev.obj["step_index"], cur.obj["step_index"])
		case TypeToolResult:
			require.Equal(t, TypeToolStart, prev.typ, "%s line %d", f.Rel, i)
			assert.Equal(t, prev.obj["invocation_id"], cur.obj["invocation_id"])
			assert.Equal(t, prev.obj["tool_name"], cur.obj["tool_name"])
		case TypeToolStart:
			assert.Contains(t, []string{TypeLLMResponse, TypeToolResult}, prev.typ, "%s line %d", f.Rel, i)
		}
	}
}

func TestCheckpointChain(t *testing.T) {
	for name, c := range testCorpora(t) {
		lastByJob := map[string][2]any{}
		for _, f := range c.Files {
			loaded := check(f.Lines[1].Text)
			prev, seen := lastByJob[f.JobID]
			if !seen {
				assert.Nil(t, loaded.obj["checkpoint_id"], "%s %s: first session loads no checkpoint", name, f.Rel)
				assert.Nil(t, loaded.obj["step_index"])
			} else {
				assert.Equal(t, prev[0], loaded.obj["checkpoint_id"], "%s %s: resumes from the last checkpoint", name, f.Rel)
				assert.Equal(t, prev[1], loaded.obj["step_index"])
			}
			for _, l := range f.Lines {
				if v := check(l.Text); v.typ == TypeCheckpointWritten {
					lastByJob[f.JobID] = [2]any{v.obj["checkpoint_id"], v.obj["step_index"]}
				}
			}
		}
	}
}

// TestFaultScenarios checks that a fault corpus holds every scenario the
// end-to-end tests rely on.
func TestFaultScenarios(t *testing.T) {
	for _, cfg := range []Config{FixtureConfig(), testConfig(7, 6, true), testConfig(-3, 12, true)} {
		c, err := Generate(cfg)
		require.NoError(t, err)
		ann := map[string]int{}
		reasons := map[string]int{}
		invalidWhy := map[string]bool{}
		maxResult := 0
		for _, f := range c.Files {
			reasons[f.EndReason]++
			for _, l := range f.Lines {
				for _, e := range l.Expect {
					ann[strings.SplitN(e, ":", 2)[0]]++
				}
				v := check(l.Text)
				if v.invalid != "" {
					invalidWhy[strings.SplitN(v.invalid, ":", 2)[0]] = true
				}
				if s, ok := v.obj["result_summary"].(string); ok {
					maxResult = max(maxResult, utf8.RuneCountInString(s))
				}
				if v.typ == TypeMemoryCompacted {
					assert.Equal(t, []string{sample.AnnUnknownType}, l.Expect)
				}
			}
		}
		assert.Equal(t, map[string]int{"corrupt": 1, "unknown_type": 1, "schema_invalid": 3, "seq_gap": 2, "seq_regression": 1}, ann)
		assert.Equal(t, map[string]bool{"finish_reason": true, "input_summary": true, "input_hash": true}, invalidWhy)
		assert.Equal(t, 1, reasons[""], "one crashed session")
		for _, r := range []string{EndCompleted, EndFailed, EndCancelled, EndApprovalPause} {
			assert.Positive(t, reasons[r], r)
		}
		assert.Equal(t, maxResultSummary, maxResult, "a result_summary is cut at exactly 4096 characters")
		checkResumeJob(t, c)
		checkGapAfterTornLine(t, c)
	}
}

// checkResumeJob: the first job crashes, resumes on another pod, pauses
// for approval and completes in a third session.
func checkResumeJob(t *testing.T, c *sample.Corpus) {
	t.Helper()
	var job []sample.File
	for _, f := range c.Files {
		if f.JobID == c.Files[0].JobID {
			job = append(job, f)
		}
	}
	require.Len(t, job, 3)
	assert.NotEmpty(t, job[0].PartialTail)
	assert.Equal(t, "", job[0].EndReason)
	assert.False(t, check(string(job[0].PartialTail)).valid(), "the tail is a cut line")
	assert.NotEqual(t, TypeSessionEnd, job[0].Lines[len(job[0].Lines)-1].Type)
	assert.Equal(t, EndApprovalPause, job[1].EndReason)
	assert.Equal(t, EndCompleted, job[2].EndReason)
	assert.NotEqual(t, job[0].Pod, job[1].Pod, "the crashed pod was replaced")
	assert.Less(t, path.Base(job[0].Rel), path.Base(job[1].Rel))
	assert.Less(t, path.Base(job[1].Rel), path.Base(job[2].Rel))
	types := map[string]bool{}
	for _, l := range job[1].Lines {
		types[l.Type] = true
	}
	assert.True(t, types[TypeApprovalRequested])
}

// checkGapAfterTornLine: the line after the torn one reports the two
// events the tear swallowed.
func checkGapAfterTornLine(t *testing.T, c *sample.Corpus) {
	t.Helper()
	for _, f := range c.Files {
		for i, l := range f.Lines {
			if !l.Corrupt {
				continue
			}
			require.Less(t, i+1, len(f.Lines))
			prev, next := f.Lines[i-1], f.Lines[i+1]
			assert.Equal(t, []string{fmt.Sprintf("seq_gap:%d-%d", prev.Seq+1, prev.Seq+2)}, next.Expect)
			assert.True(t, strings.HasPrefix(l.Text, `{"type":"LLM_R`))
			assert.Contains(t, l.Text, `{"type":"TOOL_START"`)
		}
	}
}

func TestCorpusSpan(t *testing.T) {
	for _, jobs := range []int{MinFaultJobs, 6, 50} {
		for seed := range int64(8) {
			cfg := testConfig(seed, jobs, true)
			c, err := Generate(cfg)
			require.NoError(t, err)
			for _, f := range c.Files {
				assert.Less(t, f.LastTime().Sub(cfg.Start), 75*time.Minute, "jobs=%d seed=%d %s", jobs, seed, f.Rel)
			}
		}
	}
}
