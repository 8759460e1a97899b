package enrich

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseStatic(t *testing.T) {
	m, err := ParseStatic(" cluster=prod , team=ml,")
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"cluster": "prod", "team": "ml"}, m)
	_, err = ParseStatic("novalue")
	assert.Error(t, err)
	_, err = ParseStatic("bad-name=x")
	assert.Error(t, err)
}

func TestConfig(t *testing.T) {
	t.Setenv("NODE_NAME", "node-7")
	c := DefaultConfig()
	assert.Equal(t, "node-7", c.Node)
	require.NoError(t, c.Validate())
	c.Static["1bad"] = "x"
	assert.Error(t, c.Validate())
	assert.Error(t, Config{}.Validate())
}
