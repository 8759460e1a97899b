package cortex

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestParsePath(t *testing.T) {
	cases := []struct {
		name, path string
		want       pathInfo
	}{
		{"seed example", "/data/sessions/01956a3b-7c4d-7e8f-9a1b-2c3d4e5f6789/session_20260223T143022Z_agent-worker-7b9f4-xk2n3.jsonl",
			pathInfo{OK: true, JobID: "01956a3b-7c4d-7e8f-9a1b-2c3d4e5f6789", Pod: "agent-worker-7b9f4-xk2n3", SessionStart: time.Date(2026, 2, 23, 14, 30, 22, 0, time.UTC)}},
		{"pod with underscore", "/x/01956a3b-7c4d-7e8f-9a1b-2c3d4e5f6789/session_20260223T143022Z_pod_a.jsonl",
			pathInfo{OK: true, JobID: "01956a3b-7c4d-7e8f-9a1b-2c3d4e5f6789", Pod: "pod_a", SessionStart: time.Date(2026, 2, 23, 14, 30, 22, 0, time.UTC)}},
		{"not a job dir", "/data/sessions/tmp/session_20260223T143022Z_p.jsonl",
			pathInfo{Problem: "parent directory is not a job uuid", Pod: "p", SessionStart: time.Date(2026, 2, 23, 14, 30, 22, 0, time.UTC)}},
		{"wrong extension", "/data/sessions/01956a3b-7c4d-7e8f-9a1b-2c3d4e5f6789/session.log",
			pathInfo{Problem: "file name does not end in .jsonl", JobID: "01956a3b-7c4d-7e8f-9a1b-2c3d4e5f6789"}},
		{"no prefix", "/d/01956a3b-7c4d-7e8f-9a1b-2c3d4e5f6789/run.jsonl",
			pathInfo{Problem: "file name does not start with session_", JobID: "01956a3b-7c4d-7e8f-9a1b-2c3d4e5f6789"}},
		{"bad time", "/d/01956a3b-7c4d-7e8f-9a1b-2c3d4e5f6789/session_2026-02-23_p.jsonl",
			pathInfo{Problem: "session time is not YYYYMMDDTHHMMSSZ", JobID: "01956a3b-7c4d-7e8f-9a1b-2c3d4e5f6789"}},
		{"no pod", "/d/01956a3b-7c4d-7e8f-9a1b-2c3d4e5f6789/session_20260223T143022Z.jsonl",
			pathInfo{Problem: "file name has no _<pod> part", JobID: "01956a3b-7c4d-7e8f-9a1b-2c3d4e5f6789"}},
		{"empty", "", pathInfo{Problem: "file name does not end in .jsonl"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, parsePath(tc.path))
		})
	}
}
