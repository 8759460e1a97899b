package claudecode

import (
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/integrity"
	"github.com/journalship/journalship/internal/realdata"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The journals Claude Code itself wrote (../shared/realdata/claude-code,
// see its README): public transcripts of CLI 1.0.98 to 2.1.39, with an
// auto-compaction, subagents and legacy sidechains, and a headless run
// captured with --include-partial-messages (CLI 2.1.44).

// realFile is one real journal judged line by line in file order.
type realFile struct {
	path    string
	capture bool
	lines   [][]byte // complete lines
	events  []format.Event
}

// judgeReal judges every complete line of every real journal under dir,
// each file with its own State (a subagent file's loads its main
// transcript, as the pipeline does).
func judgeReal(t *testing.T, dir string) []*realFile {
	t.Helper()
	f := New()
	var files []*realFile
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".jsonl") {
			return err
		}
		rf := &realFile{path: path, capture: strings.Contains(path, string(filepath.Separator)+"stream-json"+string(filepath.Separator))}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for len(data) > 0 {
			i := bytes.IndexByte(data, '\n')
			if i < 0 {
				break // a torn last line: not complete
			}
			rf.lines, data = append(rf.lines, bytes.TrimSuffix(data[:i], []byte("\r"))), data[i+1:]
		}
		p, _ := f.Claim(path)
		st := f.NewState(p).(*State)
		st.Load(path)
		rf.events = judgeAll(st, f, toStrings(rf.lines)...)
		files = append(files, rf)
		return nil
	})
	require.NoError(t, err)
	require.NotEmpty(t, files)
	return files
}

func toStrings(lines [][]byte) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = string(l)
	}
	return out
}

// TestRealJournalsAreValid: every complete line Claude Code wrote is
// valid under the format, with its own time, and nothing the runtime
// wrote as it meant to is annotated as lost (parent_missing), repeated or
// unpaired.
func TestRealJournalsAreValid(t *testing.T) {
	files := judgeReal(t, realdata.Dir(t, "claude-code"))
	var lines, captures int
	for _, rf := range files {
		if rf.capture {
			captures++
		}
		for i, ev := range rf.events {
			lines++
			where := filepath.Base(rf.path) + " line " + strconv.Itoa(i+1)
			require.Equal(t, integrity.Valid, ev.Outcome, "%s: %v %s", where, ev.Violations, ev.CorruptReason)
			for _, kind := range []string{NoteParentMissing, NoteUUIDRepeat, NoteToolResultWithoutCall, NoteUsageRegression, NoteContinuityUnverified} {
				assert.False(t, ev.HasNote(kind), "%s: %s", where, kind)
			}
			assert.False(t, ev.Flags&format.UnknownType != 0, "%s: unknown type %s", where, ev.TypeName)
			if want, ok := ownTime(rf.lines[i]); ok {
				assert.True(t, ev.HasTime && ev.Time.Equal(want), "%s: time %v, the line's %v", where, ev.Time, want)
			}
		}
	}
	assert.Equal(t, 1, captures, "the partial-message capture")
	t.Logf("%d real lines in %d files, every one valid", lines, len(files))
}

// ownTime is the time a line states: its timestamp, or a
// file-history-snapshot's snapshot.timestamp.
func ownTime(line []byte) (time.Time, bool) {
	var v struct {
		Timestamp any `json:"timestamp"`
		Snapshot  struct {
			Timestamp any `json:"timestamp"`
		} `json:"snapshot"`
	}
	if json.Unmarshal(line, &v) != nil {
		return time.Time{}, false
	}
	ts, ok := v.Timestamp.(string)
	if !ok {
		ts, ok = v.Snapshot.Timestamp.(string)
	}
	if !ok {
		return time.Time{}, false
	}
	tm, err := time.Parse(time.RFC3339Nano, ts)
	return tm, err == nil
}

// tally is tokens by model, the five counters of counters.
type tally map[string]counters

func (t tally) add(model string, c counters) {
	v := t[model]
	add(&v, &c)
	t[model] = v
}

// shipped sums the usage a file's lines ship, by model.
func shipped(t *testing.T, into tally, rf *realFile) {
	for _, ev := range rf.events {
		if ev.Usage.Has && ev.Outcome == integrity.Valid {
			require.NotEmpty(t, ev.Model, "%s: usage without a model", filepath.Base(rf.path))
			into.add(string(ev.Model), countersOf(&ev.Usage))
		}
	}
}

// TestRealTokensMatchWhatTheFilesState: the tokens each session ships by
// model equal what its files state. A transcript: each response
// (message.id) once, at its final usage (the largest of its lines', lines
// of another session, the copies a fork makes, left out). The capture:
// its result line's modelUsage, the Haiku model that answered only inside
// the run included, and the one-hour cache writes its usage reports.
func TestRealTokensMatchWhatTheFilesState(t *testing.T) {
	files := judgeReal(t, realdata.Dir(t, "claude-code"))
	got, want := map[string]tally{}, map[string]tally{}
	for _, rf := range files {
		session := sessionOf(rf.path)
		if got[session] == nil {
			got[session], want[session] = tally{}, tally{}
		}
		shipped(t, got[session], rf)
	}
	for _, rf := range files {
		if rf.capture {
			reported(t, want[sessionOf(rf.path)], rf)
		}
	}
	recount(t, files, want)
	for session := range want {
		assert.Equal(t, want[session], got[session], "session %s", session)
	}
	var capture tally
	for _, rf := range files {
		if rf.capture {
			capture = got[sessionOf(rf.path)]
		}
	}
	assert.Equal(t, int64(5462), capture["claude-sonnet-4-5-20250929"][1], "every response's final output, from its message_delta")
	assert.Equal(t, int64(101), capture["claude-haiku-4-5-20251001"][1], "the helper model only the result reports")
}

// sessionOf names a file's session: the capture by its path, a
// transcript by its main transcript's name.
func sessionOf(path string) string {
	if main, ok := MainTranscript(path); ok {
		path = main
	}
	return strings.TrimSuffix(path, ".jsonl")
}

// reported adds what a capture's result lines report, by model.
func reported(t *testing.T, into tally, rf *realFile) {
	for _, l := range rf.lines {
		var r struct {
			Type       string
			ModelUsage map[string]struct{ InputTokens, OutputTokens, CacheReadInputTokens, CacheCreationInputTokens int64 }
			Usage      struct {
				CacheCreation struct {
					Ephemeral1h int64 `json:"ephemeral_1h_input_tokens"`
				} `json:"cache_creation"`
			}
		}
		require.NoError(t, json.Unmarshal(l, &r))
		if r.Type != "result" {
			continue
		}
		require.NotEmpty(t, r.ModelUsage)
		models := slices.Sorted(maps.Keys(r.ModelUsage))
		for _, m := range models {
			u := r.ModelUsage[m]
			into.add(m, counters{u.InputTokens + u.CacheReadInputTokens + u.CacheCreationInputTokens, u.OutputTokens,
				u.CacheReadInputTokens, u.CacheCreationInputTokens, 0})
		}
		// The one-hour writes, which modelUsage does not split by model:
		// here all the main model's.
		into.add(models[len(models)-1], counters{4: r.Usage.CacheCreation.Ephemeral1h})
	}
}

// recount adds each transcript session's responses, by message.id, once
// at their final usage.
func recount(t *testing.T, files []*realFile, want map[string]tally) {
	type resp struct {
		model string
		c     counters
	}
	bySession := map[string]map[string]*resp{}
	for _, rf := range files {
		if rf.capture {
			continue
		}
		session := sessionOf(rf.path)
		fileSession := filepath.Base(session)
		if bySession[session] == nil {
			bySession[session] = map[string]*resp{}
		}
		for _, l := range rf.lines {
			var a struct {
				Type      string
				SessionID string
				Message   struct {
					ID, Model string
					Usage     *struct {
						InputTokens   int64 `json:"input_tokens"`
						OutputTokens  int64 `json:"output_tokens"`
						CacheRead     int64 `json:"cache_read_input_tokens"`
						CacheCreation int64 `json:"cache_creation_input_tokens"`
						Split         *struct {
							H5 int64 `json:"ephemeral_5m_input_tokens"`
							H1 int64 `json:"ephemeral_1h_input_tokens"`
						} `json:"cache_creation"`
					}
				}
			}
			require.NoError(t, json.Unmarshal(l, &a))
			if a.Type != "assistant" || a.Message.Usage == nil || a.Message.Model == syntheticModel || a.SessionID != fileSession && !strings.Contains(rf.path, "agent-") {
				continue
			}
			u := a.Message.Usage
			cw, h1 := u.CacheCreation, int64(0)
			if u.Split != nil {
				h1 = u.Split.H1
				cw = u.Split.H5 + u.Split.H1
			}
			c := counters{u.InputTokens + u.CacheRead + cw, u.OutputTokens, u.CacheRead, cw, h1}
			r := bySession[session][a.Message.ID]
			if r == nil {
				r = &resp{model: a.Message.Model}
				bySession[session][a.Message.ID] = r
			}
			for i := range c {
				r.c[i] = max(r.c[i], c[i])
			}
		}
	}
	for session, rs := range bySession {
		for _, r := range rs {
			want[session].add(r.model, r.c)
		}
	}
}
