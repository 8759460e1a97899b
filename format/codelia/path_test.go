package codelia

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestClaim(t *testing.T) {
	f := New()
	p, ok := f.Claim(runPath)
	assert.True(t, ok)
	assert.Equal(t, Name, p.Format)
	assert.Equal(t, runID, p.RunID)
	assert.Equal(t, runPath, p.Group, "retention deletes the run file alone")
	assert.Equal(t, time.Date(2026, 2, 3, 0, 0, 0, 0, time.UTC), p.Started)
	assert.Empty(t, p.Problem)
	assert.Empty(t, p.SessionID)

	p, ok = f.Claim("sessions/2024/02/29/x.jsonl")
	assert.True(t, ok, "a relative path, a leap day")
	assert.Equal(t, "x", p.RunID)

	for _, bad := range []string{"2026/02/30", "2026/13/01", "2026/00/10", "2025/02/29", "2026/04/31"} {
		p, ok = f.Claim("/r/sessions/" + bad + "/" + runID + ".jsonl")
		assert.True(t, ok, bad)
		assert.Equal(t, problemDate, p.Problem, bad)
		assert.True(t, p.Started.IsZero())
	}

	for _, refused := range []string{
		"/home/dev/.codelia/sessions/state/" + runID + ".json",
		"/home/dev/.codelia/sessions/state/" + runID + ".jsonl",
		"/home/dev/.codelia/sessions/state/sessions/2026/02/03/x.jsonl",
		"/home/dev/.codelia/sessions/2026/02/03/" + runID + ".json",
		"/home/dev/.codelia/sessions/2026/02/03/.jsonl",
		"/home/dev/.codelia/sessions/2026/2/03/x.jsonl",
		"/home/dev/.codelia/sessions/26/02/03/x.jsonl",
		"/home/dev/.codelia/sessions/2026/02/0a/x.jsonl",
		"/home/dev/.codelia/session/2026/02/03/x.jsonl",
		"/home/dev/.codelia/sessions/2026/02/03/extra/x.jsonl",
		"/data/sessions/0b0e6a66-6a8e-4c48-9d6c-3d6a4f0e7a11/session_20260203T120000Z_pod-a.jsonl",
		"2026/02/03/x.jsonl",
		"",
	} {
		_, ok = f.Claim(refused)
		assert.False(t, ok, refused)
	}
}
