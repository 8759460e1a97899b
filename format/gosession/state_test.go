package gosession

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/format/formattest"
	"github.com/journalship/journalship/integrity"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestContinuity(t *testing.T) {
	for _, c := range []struct {
		name  string
		lines []string
		notes [][]string
		open  []string
	}{
		{"in order", []string{msg(1, 0, "user"), call(2, 1, "a:bash"), result(3, 2, "a"), msg(4, 3, "assistant")},
			[][]string{nil, nil, nil, nil}, nil},
		{"uuid repeat", []string{msg(1, 0, "user"), msg(2, 1, "assistant"), msg(1, 2, "user")},
			[][]string{nil, nil, {"uuid_repeat"}}, nil},
		{"uuid repeat on any role", []string{msg(1, 0, "system"), result(1, 1, "x")},
			[][]string{nil, {"uuid_repeat", "tool_result_without_call(x)"}}, nil},
		{"timestamp regression", []string{msg(1, 10, "user"), msg(2, 5, "assistant"), msg(3, 7, "user")},
			[][]string{nil, {"timestamp_regression(2026-02-09T14:00:10Z)"}, nil}, nil},
		{"equal timestamps", []string{msg(1, 10, "user"), msg(2, 10, "assistant")}, [][]string{nil, nil}, nil},
		{"tool result without call", []string{msg(1, 0, "user"), result(2, 1, "call_9")},
			[][]string{nil, {"tool_result_without_call(call_9)"}}, nil},
		{"answered twice", []string{call(1, 0, "a:bash"), result(2, 1, "a"), result(3, 2, "a")},
			[][]string{nil, nil, nil}, nil},
		{"answered out of order", []string{call(1, 0, "a:bash", "b:grep"), result(2, 1, "b"), result(3, 2, "a")},
			[][]string{nil, nil, nil}, nil},
		{"a tool message lost: its call stays open", []string{call(1, 0, "a:bash", "b:grep"), result(2, 1, "b"), msg(3, 2, "assistant")},
			[][]string{nil, nil, nil}, []string{"tool call a (bash) was never answered"}},
		{"unanswered, in issue order", []string{call(1, 0, "z:one"), call(2, 1, "a:two"), call(3, 2, "m:three"), result(4, 3, "a")},
			[][]string{nil, nil, nil, nil}, []string{"tool call z (one) was never answered", "tool call m (three) was never answered"}},
		{"a call without a name", []string{msg(1, 0, "assistant", "tool_calls", `[{"id":"n1"}]`)},
			[][]string{nil}, []string{"tool call n1 was never answered"}},
		{"issued twice, answered once", []string{call(1, 0, "a:bash"), call(2, 1, "a:bash"), result(3, 2, "a")},
			[][]string{nil, nil, nil}, nil},
		{"result before its call (two writers)", []string{result(1, 0, "a"), call(2, 1, "a:bash")},
			[][]string{{"tool_result_without_call(a)"}, nil}, []string{"tool call a (bash) was never answered"}},
		{"another role's tool_calls are no calls", []string{msg(1, 0, "user", "tool_calls", `[{"id":"a"}]`), result(2, 1, "a")},
			[][]string{nil, {"tool_result_without_call(a)"}}, nil},
		{"schema-invalid lines count", []string{msg(1, 0, "user", "content", "5"), msg(1, 1, "user", "content", "5")},
			[][]string{nil, {"uuid_repeat"}}, nil},
		{"corrupt lines do not", []string{msg(1, 5, "user"), `{"uuid":"u-1","timestamp":"2026-02-09T14:00:00Z"}`, msg(2, 6, "user")},
			[][]string{nil, nil, nil}, nil},
		{"unknown roles count", []string{msg(1, 5, "developer"), msg(1, 4, "user")},
			[][]string{nil, {"uuid_repeat", "timestamp_regression(2026-02-09T14:00:05Z)"}}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			evs, st := run(t, nil, c.lines...)
			for i := range evs {
				assert.Equal(t, c.notes[i], formattest.Notes(&evs[i]), "line %d", i+1)
			}
			assert.Equal(t, c.open, st.Open())
		})
	}
}

func TestTimestampsAreInstants(t *testing.T) {
	line := func(id int, ts string) string {
		return fmt.Sprintf(`{"uuid":"u-%d","timestamp":%q,"role":"user"}`, id, ts)
	}
	evs, _ := run(t, nil, line(1, "2026-02-09T14:00:00Z"), line(2, "2026-02-09T15:00:00+01:00"),
		line(3, "2026-02-09T14:30:00.5+01:00"), line(4, "2026-02-09T13:30:00.500000001Z"))
	assert.Nil(t, formattest.Notes(&evs[1]), "the same instant, offsets apart")
	assert.Equal(t, []string{"timestamp_regression(2026-02-09T15:00:00+01:00)"}, formattest.Notes(&evs[2]), "13:30:00.5Z, as written before")
	assert.Nil(t, formattest.Notes(&evs[3]), "a nanosecond later")
	evs, _ = run(t, nil, line(1, "2026-02-09T19:35:00.25+05:30"), line(2, "2026-02-09T04:04:59-09:30"))
	assert.Equal(t, time.Date(2026, 2, 9, 14, 5, 0, 25e7, time.UTC), evs[0].Time.UTC())
	assert.Equal(t, time.Date(2026, 2, 9, 13, 34, 59, 0, time.UTC), evs[1].Time.UTC())
	assert.Equal(t, []string{"timestamp_regression(2026-02-09T19:35:00.25+05:30)"}, formattest.Notes(&evs[1]))
}

func TestToolNames(t *testing.T) {
	evs, _ := run(t, nil, call(1, 0, "a:bash", "b:grep"), result(2, 1, "b"), result(3, 2, "a"),
		msg(4, 3, "tool", "tool_call_id", `"zz"`, "name", `"own"`), result(5, 4, "a"))
	assert.Equal(t, "a", string(evs[0].ToolCallID))
	assert.Equal(t, "bash", string(evs[0].ToolName))
	assert.Equal(t, "grep", string(evs[1].ToolName), "the name of the call it answers")
	assert.Equal(t, "b", string(evs[1].ToolCallID))
	assert.Equal(t, "bash", string(evs[2].ToolName))
	assert.Equal(t, "own", string(evs[3].ToolName), "an unknown call: the message's own name")
	assert.Empty(t, evs[4].ToolName, "an answered call's name is not kept")
}

func TestDerived(t *testing.T) {
	for _, c := range []struct {
		name  string
		lines []string
		want  string
	}{
		{"none", nil, StateIdle},
		{"only system", []string{msg(1, 0, "system")}, StateIdle},
		{"user", []string{msg(1, 0, "system"), msg(2, 1, "user")}, StateThinking},
		{"assistant calling tools", []string{msg(1, 0, "user"), call(2, 1, "a:bash")}, StateActing},
		{"assistant with a malformed call", []string{msg(1, 0, "user"), msg(2, 1, "assistant", "tool_calls", `[5]`)}, StateActing},
		{"assistant", []string{msg(1, 0, "user"), msg(2, 1, "assistant")}, StateIdle},
		{"assistant with no calls", []string{msg(1, 0, "user"), msg(2, 1, "assistant", "tool_calls", `[]`)}, StateIdle},
		{"assistant with null calls", []string{msg(1, 0, "user"), msg(2, 1, "assistant", "tool_calls", `null`)}, StateIdle},
		{"tool", []string{call(1, 0, "a:x"), result(2, 1, "a")}, StateThinking},
		{"system changes nothing", []string{call(1, 0, "a:x"), msg(2, 1, "system")}, StateActing},
		{"unknown role changes nothing", []string{msg(1, 0, "user"), msg(2, 1, "developer")}, StateThinking},
		{"corrupt changes nothing", []string{msg(1, 0, "user"), `{"role":"assistant"`}, StateThinking},
		{"schema-invalid counts", []string{msg(1, 0, "user"), `{"role":"assistant"}`}, StateIdle},
	} {
		t.Run(c.name, func(t *testing.T) {
			evs, st := run(t, nil, c.lines...)
			assert.Equal(t, c.want, st.Derived())
			if n := len(evs); n > 0 && evs[n-1].Outcome != integrity.Corrupt && evs[n-1].EventType != "" && evs[n-1].EventType != TypeSystem {
				assert.Equal(t, c.want, evs[n-1].State, "the last message's state is the current one")
			}
		})
	}
	evs, _ := run(t, nil, msg(1, 0, "user"), msg(2, 1, "system"), msg(3, 2, "developer"), `{"role":`)
	assert.Equal(t, []string{StateThinking, StateThinking, StateThinking, ""},
		[]string{evs[0].State, evs[1].State, evs[2].State, evs[3].State}, "every message carries the state after it")
}

// meta builds a metadata read from a file, with times as base + seconds
// (negative: unknown).
func meta(exit string, created, updated float64) *Metadata {
	m := &Metadata{Read: true, ExitReason: exit, Model: "claude-sonnet-4-5-20250929"}
	if created >= 0 {
		m.CreatedAt, m.HasCreatedAt = base.Add(time.Duration(created*float64(time.Second))), true
	}
	if updated >= 0 {
		m.UpdatedAt, m.HasUpdatedAt = base.Add(time.Duration(updated*float64(time.Second))), true
	}
	return m
}

func TestOver(t *testing.T) {
	turn := []string{msg(1, 10, "user"), call(2, 11, "a:bash"), result(3, 12, "a")}
	withMod := func(m *Metadata, sec float64) *Metadata {
		m.ModTime = base.Add(time.Duration(sec * float64(time.Second)))
		return m
	}
	for _, c := range []struct {
		name  string
		m     *Metadata
		lines []string
		over  bool
	}{
		{"no metadata", nil, turn, false},
		{"metadata unknown", &Metadata{ExitReason: "end_turn", UpdatedAt: base.Add(time.Hour), HasUpdatedAt: true}, turn, false},
		{"no exit_reason", meta("", 0, 20), turn, false},
		{"ended after the last message", meta("end_turn", 0, 20), turn, true},
		{"any exit_reason", meta("something_new", 0, 20), turn, true},
		{"updated_at at the last message", meta("max_turns", 0, 12), turn, true},
		{"resumed: a stale exit_reason", meta("end_turn", 0, 11.5), turn, false},
		{"fork: created_at = updated_at", meta("end_turn", 20, 20), turn, false},
		{"fork before its run: copied messages only", meta("end_turn", 30, 30), turn, false},
		{"fork after its run", meta("end_turn", 5, 20), turn, true},
		{"updated_at before created_at", meta("end_turn", 30, 20), turn, false},
		{"no created_at", meta("end_turn", -1, 20), turn, true},
		{"no messages", meta("error_during_execution", 0, 1), nil, true},
		{"only unreadable lines", meta("end_turn", 0, 1), []string{`{"role":1}`, `{"timestamp":"2026-02-09T15:00:00Z","role":"user","uuid":""}`}, false},
		{"no updated_at, no mtime", meta("end_turn", 0, -1), turn, false},
		{"no updated_at: mtime after the messages", withMod(meta("end_turn", 0, -1), 13), turn, true},
		{"no updated_at: mtime at the last message", withMod(meta("end_turn", 0, -1), 12), turn, true},
		{"no updated_at: mtime before a message", withMod(meta("end_turn", 0, -1), 11), turn, false},
		{"no updated_at: a fork's copied messages", withMod(meta("end_turn", 20, -1), 25), turn, false},
		{"no updated_at, no created_at", withMod(meta("end_turn", -1, -1), 25), turn, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			evs, st := run(t, c.m, c.lines...)
			over, terminal := st.Over()
			assert.Equal(t, c.over, over)
			assert.Equal(t, over, terminal, "an end on purpose is terminal")
			for _, ev := range evs {
				assert.False(t, ev.Ends, "no line ends the session: metadata.json does")
			}
			if c.over {
				assert.Equal(t, StateIdle, st.Derived(), "over: idle whatever the last message")
			}
			if len(c.lines) == 3 {
				assert.Equal(t, StateThinking, evs[2].State, "a line's state follows the messages")
			}
		})
	}
	_, st := run(t, meta("end_turn", 0, 20), turn[:2]...)
	over, _ := st.Over()
	assert.True(t, over)
	assert.Equal(t, StateIdle, st.Derived(), "interrupted while acting: idle")
	assert.Equal(t, []string{"tool call a (bash) was never answered"}, st.Open(), "reported, not annotated")
	// A session resumed after its end is open again.
	feed(st, New(), msg(9, 30, "user"))
	over, _ = st.Over()
	assert.False(t, over)
	assert.Equal(t, StateThinking, st.Derived())
}

func TestModelFromMetadata(t *testing.T) {
	evs, _ := run(t, meta("", 0, 1), msg(1, 0, "user"), call(2, 1, "a:bash"), result(3, 2, "a"), msg(4, 3, "assistant"), msg(5, 4, "system"))
	var models []string
	for _, ev := range evs {
		models = append(models, string(ev.Model))
	}
	assert.Equal(t, []string{"", "claude-sonnet-4-5-20250929", "", "claude-sonnet-4-5-20250929", ""}, models, "on assistant lines only")
	evs, _ = run(t, nil, msg(1, 1, "assistant"))
	assert.Empty(t, evs[0].Model, "no metadata, no model")
	assert.Equal(t, "0d1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d", string(evs[0].SessionID), "the session directory")
}

func TestBounds(t *testing.T) {
	f, err := NewWith(Config{MaxTrackedIDs: 2, MaxOpenCalls: 2, MaxMetadataBytes: 1})
	require.NoError(t, err)
	evs, st := runWith(t, f, Messages, nil, msg(1, 0, "user"), msg(2, 1, "user"), msg(3, 2, "user"), msg(3, 3, "user"), msg(1, 4, "user"))
	assert.Nil(t, formattest.Notes(&evs[3]), "u-3 was not tracked: no judgement")
	assert.Equal(t, []string{"uuid_repeat"}, formattest.Notes(&evs[4]))
	assert.True(t, st.uuids.full)
	assert.Equal(t, 2, st.uuids.n)

	evs, st = runWith(t, f, Messages, nil, call(1, 0, "a:x", "b:y"), call(2, 1, "c:z"), result(3, 2, "c"), result(4, 3, "q"))
	assert.Equal(t, 2, st.open.Len())
	assert.Nil(t, formattest.Notes(&evs[2]))
	assert.Nil(t, formattest.Notes(&evs[3]), "the call ids overflowed: q may have been issued")
	assert.Equal(t, []string{"tool call a (x) was never answered", "tool call b (y) was never answered"}, st.Open())

	f, err = NewWith(Config{MaxTrackedIDs: 10, MaxOpenCalls: 2, MaxMetadataBytes: 1})
	require.NoError(t, err)
	_, st = runWith(t, f, Messages, nil, call(1, 0, "a:x", "b:y", "c:z", "d:w"))
	assert.Equal(t, []string{"tool call a (x) was never answered", "tool call b (y) was never answered",
		"2 more tool calls were never answered"}, st.Open())
	evs = feed(st, f, result(2, 1, "c"))
	assert.Nil(t, formattest.Notes(&evs[0]))
	assert.Equal(t, "1 more tool calls were never answered", st.Open()[2])
	feed(st, f, result(3, 2, "a"), result(4, 3, "a"), result(5, 4, "c"))
	assert.Equal(t, []string{"tool call b (y) was never answered", "1 more tool calls were never answered"}, st.Open(),
		"a call answered twice is not one of those past the list")

	long := strings.Repeat("é", 300)
	_, st = run(t, nil, call(1, 0, long+":"+long))
	require.Equal(t, 1, st.open.Len())
	assert.LessOrEqual(t, len(st.open.At(0).ID), maxKept, "ids and names kept are clipped")
	assert.LessOrEqual(t, len(st.open.At(0).Name), maxKept)
}

func TestIDSet(t *testing.T) {
	s := idSet{max: 1000}
	for i := uint64(0); i < 1000; i++ {
		assert.False(t, s.add(i*0x9E3779B97F4A7C15), i)
	}
	for i := uint64(0); i < 1000; i++ {
		assert.True(t, s.has(i*0x9E3779B97F4A7C15), i)
		assert.True(t, s.add(i*0x9E3779B97F4A7C15), i)
	}
	assert.False(t, s.add(12345))
	assert.True(t, s.full)
	assert.False(t, s.has(12345))
	assert.LessOrEqual(t, s.n*2, len(s.slots), "at most half full")
	assert.True(t, s.has(0), "0 is stored as 1")
}

func TestNilState(t *testing.T) {
	j := New().NewJudge()
	var a integrity.Arena
	var ev format.Event
	for _, l := range valid {
		j.Judge([]byte(l), nil, &a, &ev)
		assert.Equal(t, integrity.Valid, ev.Outcome)
		assert.Empty(t, ev.SessionID)
		assert.Zero(t, ev.NoteCount)
	}
	j.Judge([]byte(valid[TypeUser]), format.State(nil), &a, &ev)
	assert.Equal(t, integrity.Valid, ev.Outcome)
	// Another format's state is no state.
	j.Judge([]byte(valid[TypeTool]), otherState{}, &a, &ev)
	assert.Equal(t, integrity.Valid, ev.Outcome)
	assert.Zero(t, ev.NoteCount)
}

type otherState struct{}

func (otherState) Open() []string     { return nil }
func (otherState) Over() (bool, bool) { return false, false }
func (otherState) Derived() string    { return "" }

// TestLoad reads the side files of a session directory through Load.
func TestLoad(t *testing.T) {
	messages := []byte(msg(1, 10, "user") + "\n" + msg(2, 11, "assistant") + "\n")
	metaJSON := func(extra string) []byte {
		return []byte(`{"session_id":"s1","created_at":"2026-02-09T14:00:00Z","model":"gpt-4.1","exit_reason":"end_turn"` + extra + "}\n")
	}
	at := func(sec float64) time.Time { return base.Add(time.Duration(sec * float64(time.Second))) }
	load := func(t *testing.T, dir, journal string, lines ...string) ([]format.Event, *State) {
		f := New()
		path := filepath.Join(dir, journal)
		p, ok := f.Claim(path)
		require.True(t, ok)
		st := f.NewState(p).(*State)
		st.Load(path)
		return feed(st, f, lines...), st
	}
	lines := []string{msg(1, 10, "user"), msg(2, 11, "assistant")}

	t.Run("model and session", func(t *testing.T) {
		dir := writeSession(t, "s1", map[string][]byte{MessagesFile: messages, MetadataFile: metaJSON(`,"updated_at":"2026-02-09T14:00:12Z"`)}, nil)
		evs, st := load(t, dir, MessagesFile, lines...)
		assert.Equal(t, Messages, st.Journal())
		m, ok := st.Metadata()
		assert.True(t, ok)
		assert.Equal(t, "gpt-4.1", m.Model)
		assert.Equal(t, "gpt-4.1", string(evs[1].Model))
		assert.Equal(t, "s1", string(evs[1].SessionID))
		over, _ := st.Over()
		assert.True(t, over)
	})
	t.Run("no updated_at: metadata written after the messages", func(t *testing.T) {
		dir := writeSession(t, "s1", map[string][]byte{MessagesFile: messages, MetadataFile: metaJSON("")},
			map[string]time.Time{MessagesFile: at(11.5), MetadataFile: at(12)})
		_, st := load(t, dir, MessagesFile, lines...)
		over, _ := st.Over()
		assert.True(t, over)
	})
	t.Run("no updated_at: messages written after the metadata", func(t *testing.T) {
		dir := writeSession(t, "s1", map[string][]byte{MessagesFile: messages, MetadataFile: metaJSON("")},
			map[string]time.Time{MessagesFile: at(12), MetadataFile: at(11.5)})
		_, st := load(t, dir, MessagesFile, lines...)
		over, _ := st.Over()
		assert.False(t, over)
	})
	t.Run("half-written metadata is unknown", func(t *testing.T) {
		full := metaJSON(`,"updated_at":"2026-02-09T14:00:12Z"`)
		dir := writeSession(t, "s1", map[string][]byte{MessagesFile: messages, MetadataFile: full[:len(full)/2]}, nil)
		evs, st := load(t, dir, MessagesFile, lines...)
		_, ok := st.Metadata()
		assert.False(t, ok)
		assert.Empty(t, evs[1].Model)
		over, _ := st.Over()
		assert.False(t, over)
		assert.Equal(t, StateIdle, st.Derived())

		// Read again once rewritten.
		require.NoError(t, os.WriteFile(filepath.Join(dir, MetadataFile), full, 0o644))
		st.Load(filepath.Join(dir, MessagesFile))
		over, _ = st.Over()
		assert.True(t, over)
	})
	t.Run("transcript: the messages' last lines decide", func(t *testing.T) {
		upd := `,"updated_at":"2026-02-09T14:00:12Z"`
		for _, c := range []struct {
			name     string
			messages []byte
			over     bool
		}{
			{"ended after them", messages, true},
			{"a newer message: resumed", append(append([]byte{}, messages...), msg(3, 20, "user")+"\n"...), false},
			{"a newer torn line is not one", append(append([]byte{}, messages...), msg(3, 20, "user")[:40]...), true},
			{"a newer corrupt line is not one", append(append([]byte{}, messages...), `{"timestamp":"2026-02-09T14:00:20Z",`+"\n"...), true},
			{"newest is not last (two writers)", []byte(msg(3, 20, "user") + "\n" + msg(1, 10, "user") + "\n"), false},
			{"a last message larger than the first window", []byte(msg(3, 20, "user", "content", `"`+strings.Repeat("x", 100<<10)+`"`) + "\n"), false},
			{"no messages.jsonl", nil, true},
			{"an empty messages.jsonl", []byte{}, true},
		} {
			t.Run(c.name, func(t *testing.T) {
				files := map[string][]byte{MetadataFile: metaJSON(upd), TranscriptFile: []byte(`{"type":"system"}` + "\n")}
				if c.messages != nil {
					files[MessagesFile] = c.messages
				}
				dir := writeSession(t, "s1", files, nil)
				evs, st := load(t, dir, TranscriptFile, `{"type":"system","session_id":"s1"}`, `{"role":"user"}`)
				assert.Equal(t, Transcript, st.Journal())
				over, terminal := st.Over()
				assert.Equal(t, c.over, over)
				assert.Equal(t, over, terminal)
				assert.Equal(t, "", st.Derived())
				assert.Equal(t, TypeTranscript, evs[1].EventType, "a transcript line whatever it holds")
				assert.Equal(t, []string{"type: required field missing"}, formattest.Violations(&evs[1]))
			})
		}
	})
	t.Run("not a journal", func(t *testing.T) {
		dir := writeSession(t, "s1", map[string][]byte{MetadataFile: metaJSON(`,"updated_at":"2026-02-09T14:00:12Z"`)}, nil)
		st := New().NewState(format.Path{}).(*State)
		st.Load(filepath.Join(dir, "other.jsonl"))
		assert.Equal(t, NotAJournal, st.Journal())
		_, ok := st.Metadata()
		assert.False(t, ok, "nothing is read beside a file of no session")
		st.Load(filepath.Join(dir, MessagesFile))
		_, ok = st.Metadata()
		assert.True(t, ok, "the journal need not exist yet")
		evs := feed(st, New(), msg(1, 1, "user"))
		assert.Equal(t, "s1", string(evs[0].SessionID), "the session from the path Load was given")
	})
}
