package cortex

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestChecker makes sure the independent checker itself tells lines apart,
// so that agreeing with it means something.
func TestChecker(t *testing.T) {
	const ids = `"job_id":"019c8ae8-6a97-7b8e-a167-855630473aab","session_id":"019c8ae8-8c30-7581-a525-53016744c96b"`
	const ts = `"timestamp":"2026-02-23T14:30:22.000Z"`
	tests := []struct {
		name    string
		line    string
		corrupt bool
		unknown bool
		invalid bool
		seq     int64
	}{
		{"valid end", `{"type":"SESSION_END",` + ts + `,` + ids + `,"seq":9,"reason":"completed","total_events":10}`, false, false, false, 9},
		{"torn", `{"type":"LLM_R{"type":"TOOL_START",` + ts + `}`, true, false, false, -1},
		{"array", `[1,2]`, true, false, false, -1},
		{"no timestamp", `{"type":"ERROR",` + ids + `}`, true, false, false, -1},
		{"trailing data", `{"type":"ERROR",` + ts + `,` + ids + `} {}`, true, false, false, -1},
		{"unknown type", `{"type":"MEMORY_COMPACTED",` + ts + `,` + ids + `,"seq":4}`, false, true, false, 4},
		{"bad enum", `{"type":"SESSION_END",` + ts + `,` + ids + `,"seq":9,"reason":"done","total_events":10}`, false, false, true, 9},
		{"missing seq", `{"type":"SESSION_END",` + ts + `,` + ids + `,"reason":"completed","total_events":10}`, false, false, true, -1},
		{"float seq", `{"type":"ERROR",` + ts + `,` + ids + `,"seq":1.5}`, false, false, true, -1},
		{"bad hash", `{"type":"TOOL_START",` + ts + `,` + ids + `,"seq":3,"invocation_id":"019c8ae8-6a97-7b8e-a167-855630473aab","tool_name":"bash","input_hash":"ABC"}`, false, false, true, 3},
		{"bad uuid", `{"type":"ERROR",` + ts + `,"job_id":"x","session_id":"y","seq":1}`, false, false, true, 1},
		{"bad date", `{"type":"ERROR","timestamp":"yesterday",` + ids + `,"seq":1}`, false, false, true, 1},
		{"null checkpoint", `{"type":"CHECKPOINT_LOADED",` + ts + `,` + ids + `,"seq":1,"checkpoint_id":null,"step_index":null}`, false, false, false, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := check(tt.line)
			assert.Equal(t, tt.corrupt, v.corrupt, "corrupt")
			assert.Equal(t, tt.unknown, v.unknown, "unknown")
			assert.Equal(t, tt.invalid, v.invalid != "", "invalid: %s", v.invalid)
			assert.Equal(t, tt.seq, v.seq, "seq")
		})
	}
}
