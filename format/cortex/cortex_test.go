package cortex

import (
	"testing"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/integrity"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	job   = "0b0e6a66-6a8e-4c48-9d6c-3d6a4f0e7a11"
	start = `{"type":"SESSION_START","timestamp":"2026-02-03T12:00:00Z","job_id":"` + job + `","session_id":"5d1f7c1e-0c1d-4d7e-9a51-2f7c0b1d2e3f","seq":0,"agent_id":"7a1e0c3d-1b2c-4d5e-8f90-a1b2c3d4e5f6","pod_name":"pod-a","buffer_schema_version":%d}`
)

func line(s string, v int) []byte {
	if v == 0 {
		return []byte(s)
	}
	b := []byte{}
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && s[i+1] == 'd' {
			b = append(b, byte('0'+v))
			i++
			continue
		}
		b = append(b, s[i])
	}
	return b
}

func TestClaim(t *testing.T) {
	f := New()
	p, ok := f.Claim("/data/sessions/" + job + "/session_20260203T120000Z_pod-a.jsonl")
	require.True(t, ok)
	assert.Equal(t, job, p.JobID)
	assert.Equal(t, "pod-a", p.Pod)
	assert.Equal(t, "/data/sessions/"+job, p.Group, "retention deletes the job directory together")
	assert.Empty(t, p.Problem)
	p, ok = f.Claim("/data/sessions/not-a-job/session_x.jsonl")
	assert.True(t, ok, "the layout's name is claimed even when its parts are wrong")
	assert.NotEmpty(t, p.Problem)
	_, ok = f.Claim("/data/sessions/2026/02/03/" + job + ".jsonl")
	assert.False(t, ok)
}

func TestJudgeMapsOntoTheNeutralEvent(t *testing.T) {
	f := New()
	j, st := f.NewJudge(), f.NewState(format.Path{})
	var a integrity.Arena
	var ev format.Event
	j.Judge(line(start, 1), st, &a, &ev)
	require.Equal(t, integrity.Valid, ev.Outcome, ev.Violations)
	assert.Equal(t, "SESSION_START", ev.EventType)
	assert.Equal(t, format.RoleSessionStart, ev.Role)
	assert.True(t, ev.HasSeq)
	assert.Equal(t, "7a1e0c3d-1b2c-4d5e-8f90-a1b2c3d4e5f6", string(ev.AgentID))
	assert.Equal(t, State{Version: 1, HasVersion: true}, *st.(*State))
	j.Judge([]byte(`{"type":"LLM_RESPONSE","timestamp":"2026-02-03T12:00:01Z","job_id":"`+job+`","session_id":"5d1f7c1e-0c1d-4d7e-9a51-2f7c0b1d2e3f","seq":2,"step_index":1,"prompt_tokens":10,"completion_tokens":5,"finish_reason":"end_turn"}`), st, &a, &ev)
	require.Equal(t, integrity.Valid, ev.Outcome, ev.Violations)
	assert.Equal(t, format.RoleLLMResponse, ev.Role)
	assert.Equal(t, format.Usage{Input: 10, Output: 5, Has: true}, ev.Usage)
	assert.Equal(t, int64(1), ev.Pair)
	j.Judge([]byte(`{"type":"SESSION_END","timestamp":"2026-02-03T12:00:02Z","job_id":"`+job+`","session_id":"5d1f7c1e-0c1d-4d7e-9a51-2f7c0b1d2e3f","seq":3,"reason":"approval_pause"}`), st, &a, &ev)
	assert.True(t, ev.Ends)
	assert.False(t, ev.Terminal, "an approval pause resumes")
	over, terminal := st.Over()
	assert.True(t, over)
	assert.False(t, terminal)
	j.Judge([]byte(`{"type":"NEW_THING","timestamp":"2026-02-03T12:00:02Z","job_id":"x"}`), st, &a, &ev)
	assert.Equal(t, "", ev.EventType)
	assert.NotZero(t, ev.Flags&format.UnknownType)
}

func TestUnknownVersionIsBestEffort(t *testing.T) {
	f := New()
	j, st := f.NewJudge(), f.NewState(format.Path{})
	var a integrity.Arena
	var ev format.Event
	j.Judge(line(start, 9), st, &a, &ev)
	assert.NotZero(t, ev.Flags&format.BestEffort)
	j.Judge([]byte(`{"type":"LLM_REQUEST","timestamp":"2026-02-03T12:00:01Z","job_id":"`+job+`","seq":1}`), st, &a, &ev)
	assert.Equal(t, integrity.Valid, ev.Outcome, "only the version-independent fields are required")
	assert.NotZero(t, ev.Flags&format.BestEffort)
}

func TestSniff(t *testing.T) {
	f := New()
	assert.True(t, f.Sniff(line(start, 1)))
	assert.False(t, f.Sniff([]byte(`{"type":"header","schema_version":1}`)))
	assert.False(t, f.Sniff([]byte(`not json`)))
}

func BenchmarkJudge(b *testing.B) {
	l := []byte(`{"type":"LLM_RESPONSE","timestamp":"2026-02-03T12:00:01Z","job_id":"` + job + `","session_id":"5d1f7c1e-0c1d-4d7e-9a51-2f7c0b1d2e3f","seq":2,"step_index":1,"prompt_tokens":10,"completion_tokens":5,"finish_reason":"end_turn"}`)
	f := New()
	j, st := f.NewJudge(), f.NewState(format.Path{})
	a := integrity.NewArena(1 << 20)
	var ev format.Event
	b.SetBytes(int64(len(l)))
	b.ReportAllocs()
	for b.Loop() {
		a.Reset(1 << 20)
		j.Judge(l, st, a, &ev)
	}
}
