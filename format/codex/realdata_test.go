package codex

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/format/formattest"
	"github.com/journalship/journalship/integrity"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The rollouts Codex itself wrote (testdata/real, see its README): CLI
// 0.40.0 (a resume that restarted the totals, interrupted turns), 0.104
// (rate-limit repeats of every token_count, a remote compaction, an
// unanswered call at a crash) and 0.135 (codex exec).

// realFile is one real rollout judged line by line in file order.
type realFile struct {
	path   string
	lines  [][]byte
	events []format.Event
	st     *State
}

func judgeReal(t *testing.T) []*realFile {
	t.Helper()
	f := New()
	var files []*realFile
	err := filepath.WalkDir("testdata/real", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".jsonl") {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rf := &realFile{path: path}
		for l := range bytes.SplitSeq(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
			rf.lines = append(rf.lines, l)
		}
		p, ok := f.Claim(path)
		if !ok {
			require.True(t, f.Sniff(rf.lines[0]), "%s is neither claimed nor sniffed", path)
			p = format.Path{Format: Name, Group: path}
		}
		rf.st = f.NewState(p).(*State)
		strs := make([]string, len(rf.lines))
		for i, l := range rf.lines {
			strs[i] = string(l)
		}
		rf.events = formattest.JudgeLines(f.NewJudge(), rf.st, strs...)
		files = append(files, rf)
		return nil
	})
	require.NoError(t, err)
	require.Len(t, files, 7)
	return files
}

// TestRealRolloutsAreValid: every line Codex wrote is valid, of a known
// type, with its own time and the file's session, and nothing is
// annotated but what the files truly show.
func TestRealRolloutsAreValid(t *testing.T) {
	notes := map[string]int{}
	lines := 0
	for _, rf := range judgeReal(t) {
		for i, ev := range rf.events {
			lines++
			where := filepath.Base(rf.path) + " line " + strconv.Itoa(i+1)
			require.Equal(t, integrity.Valid, ev.Outcome, "%s: %v %s", where, formattest.Violations(&ev), ev.CorruptReason)
			require.Zero(t, ev.Flags&format.UnknownType, "%s: unknown type %s", where, ev.TypeName)
			require.NotEmpty(t, ev.EventType, "%s: %s", where, ev.TypeName)
			var v struct{ Timestamp string }
			require.NoError(t, json.Unmarshal(rf.lines[i], &v))
			want, err := time.Parse(time.RFC3339Nano, v.Timestamp)
			require.NoError(t, err)
			assert.True(t, ev.HasTime && ev.Time.Equal(want), "%s: time %v, the line's %v", where, ev.Time, want)
			for _, n := range formattest.Notes(&ev) {
				notes[n]++
			}
			for _, kind := range []string{NoteToolResultWithoutCall, NoteCallIDRepeat, NoteUsageInconsistent, NotePayloadTypeUnknown, NoteModelUnknown, NoteSessionIDMismatch} {
				assert.False(t, ev.HasNote(kind), "%s: %s", where, kind)
			}
		}
	}
	assert.Equal(t, map[string]int{
		"usage_baseline":                     1, // the excerpt starts mid-session
		"usage_reset(input 1355071 → 37208)": 1, // a resume of CLI 0.40 restarted the totals
	}, notes)
	t.Logf("%d real lines, every one valid", lines)
}

// TestRealTokensMatchTheFilesTotals: what each file ships equals its own
// final total_token_usage, accounting for where its totals restarted
// (each run of growing totals counts its growth and its first line's
// last usage), and the model is the turn_context's.
func TestRealTokensMatchTheFilesTotals(t *testing.T) {
	for _, rf := range judgeReal(t) {
		var got, want counters
		var responses int
		for _, ev := range rf.events {
			if ev.Usage.Has {
				responses++
				got[cInput] += ev.Usage.Input
				got[cCached] += ev.Usage.CacheRead
				got[cOutput] += ev.Usage.Output
				assert.NotEmpty(t, ev.Model, filepath.Base(rf.path))
				assert.Equal(t, format.RoleLLMResponse, ev.Role)
			}
		}
		var prev *counters
		for _, l := range rf.lines {
			var v struct {
				Payload struct {
					Type string
					Info *struct {
						Total tokenJSON `json:"total_token_usage"`
						Last  tokenJSON `json:"last_token_usage"`
					}
				}
			}
			require.NoError(t, json.Unmarshal(l, &v))
			if v.Payload.Type != "token_count" || v.Payload.Info == nil {
				continue
			}
			tot, last := v.Payload.Info.Total.counters(), v.Payload.Info.Last.counters()
			switch {
			case prev == nil || !tot.grew(prev):
				// A file's first totals, or totals that restarted: the
				// response that brought them counts whole.
				for _, i := range []int{cInput, cCached, cOutput} {
					want[i] += last[i]
				}
			default:
				for _, i := range []int{cInput, cCached, cOutput} {
					want[i] += tot[i] - prev[i]
				}
			}
			prev = &tot
		}
		assert.Equal(t, want, got, filepath.Base(rf.path))
		t.Logf("%s: %d responses, %d in (%d cached), %d out", filepath.Base(rf.path), responses, got[cInput], got[cCached], got[cOutput])
	}
}

type tokenJSON struct {
	Input     int64 `json:"input_tokens"`
	Cached    int64 `json:"cached_input_tokens"`
	Output    int64 `json:"output_tokens"`
	Reasoning int64 `json:"reasoning_output_tokens"`
	Total     int64 `json:"total_tokens"`
}

func (u tokenJSON) counters() counters {
	return counters{u.Input, u.Cached, u.Output, u.Reasoning, u.Total}
}

// TestRealEnds: where each real session stands at its last line.
func TestRealEnds(t *testing.T) {
	got := map[string]string{}
	for _, rf := range judgeReal(t) {
		name := strings.TrimPrefix(filepath.ToSlash(rf.path), "testdata/real/")
		got[name] = rf.st.Derived() + " " + strings.Join(rf.st.Open(), "; ")
	}
	names := make([]string, 0, len(got))
	for n := range got {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		t.Logf("%s: %s", n, got[n])
	}
	assert.Equal(t, "idle ", got["session-01.jsonl"], "codex exec: task_complete")
	assert.Equal(t, "idle ", got["rollout-2026-02-23T12-41-04-019c8a4d-8f45-7010-8b5d-7fad920aa6f9.jsonl"])
	assert.Equal(t, "idle ", got["rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl"], "cut after a task_complete")
	assert.Equal(t, "idle ", got["excerpt/rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl"])
	assert.Equal(t, "idle ", got["rollout-2025-09-25T08-02-05-0199812e-64f0-7f73-91fc-095dda01c36e.jsonl"], "0.40: the last assistant message")
	assert.True(t, strings.HasPrefix(got["rollout-2026-02-23T13-19-38-019c8a70-dda7-7f33-98ea-f30553347322.jsonl"], "acting call "),
		"the app quit while a call ran")
}
