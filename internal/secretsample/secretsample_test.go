package secretsample

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestExamples(t *testing.T) {
	assert.Greater(t, len(TruePositives()), 500)
	assert.Greater(t, len(FalsePositives()), 300)
	for _, rule := range []string{"aws-access-token", "github-pat", "slack-bot-token", "private-key", "jwt", "stripe-access-token"} {
		assert.NotEmpty(t, Of(rule), rule)
	}
}

// TestInject: the text goes into the longest string value, escaped; the
// line stays JSON with the same keys; a line without a string value is
// left alone.
func TestInject(t *testing.T) {
	line := []byte(`{"type":"TOOL_RESULT","a":{"result_summary":"ok \"quoted\" output","n":3},"b":"x"}`)
	out, ok := Inject(line, "key=\"K\"\nnext")
	require.True(t, ok)
	var v map[string]any
	require.NoError(t, json.Unmarshal(out, &v))
	assert.Equal(t, "key=\"K\"\nnextok \"quoted\" output", v["a"].(map[string]any)["result_summary"])
	assert.Equal(t, "TOOL_RESULT", v["type"])
	_, ok = Inject([]byte(`{"a":1,"b":[2,3]}`), "x")
	assert.False(t, ok)
	_, ok = Inject([]byte(`{"id":"01956a3b-8000-7000-8000-000000000001"}`), "x")
	assert.False(t, ok, "no free text: ids and hashes are left alone")
	_, ok = Inject([]byte(`not json "unterminated`), "x")
	assert.False(t, ok)
}
