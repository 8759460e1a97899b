package output

import (
	"testing"

	"github.com/journalship/journalship/metrics"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMaxModelValuesSetting(t *testing.T) {
	c, err := parseConfig(getter(map[string]string{}))
	require.NoError(t, err)
	assert.Equal(t, metrics.DefaultMaxModelValues, c.metrics.MaxModelValues)

	c, err = parseConfig(getter(map[string]string{"Metrics_Max_Model_Values": " 500 "}))
	require.NoError(t, err)
	assert.Equal(t, 500, c.metrics.MaxModelValues)

	for _, bad := range []string{"0", "-3", "lots", "1K"} {
		_, err := parseConfig(getter(map[string]string{"Metrics_Max_Model_Values": bad}))
		assert.ErrorContains(t, err, "setting Metrics_Max_Model_Values", bad)
	}
}
