package metrics

import (
	"io"
	"net/http"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSetCounts(t *testing.T) {
	s := New()
	s.LinesIn.WithLabelValues("valid").Add(3)
	s.Tokens.WithLabelValues("m", "prompt", "default").Add(100)
	assert.Equal(t, 3.0, testutil.ToFloat64(s.LinesIn.WithLabelValues("valid")))
	assert.Equal(t, 100.0, testutil.ToFloat64(s.Tokens.WithLabelValues("m", "prompt", "default")))
}

func TestAcquireServesOncePerProcess(t *testing.T) {
	a, err := Acquire(Config{Address: "127.0.0.1:0", Path: "/metrics"})
	require.NoError(t, err)
	b, err := Acquire(Config{Address: "127.0.0.1:1", Path: "/metrics"})
	require.NoError(t, err, "a second instance shares the endpoint")
	assert.Same(t, a, b)
	a.LinesShipped.Add(7)

	resp, err := http.Get("http://" + procSrv.Addr() + "/metrics")
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Contains(t, string(body), "journalship_lines_shipped_total 7")

	require.NoError(t, Release())
	require.NoError(t, Release())
	assert.Nil(t, procSet)
	require.NoError(t, Release(), "extra releases are harmless")
}

func TestConfigValidate(t *testing.T) {
	assert.NoError(t, DefaultConfig().Validate())
	assert.NoError(t, Config{}.Validate(), "empty address disables")
	assert.Error(t, Config{Address: "nope", Path: "/m"}.Validate())
	assert.Error(t, Config{Address: "127.0.0.1:1", Path: "m"}.Validate())
}
