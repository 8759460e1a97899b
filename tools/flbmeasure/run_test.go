package main

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestProcReaders(t *testing.T) {
	cpu, err := procCPU(os.Getpid())
	require.NoError(t, err)
	assert.GreaterOrEqual(t, cpu, 0.0)
	rss, err := procPeakRSS(os.Getpid())
	require.NoError(t, err)
	assert.Greater(t, rss, 1.0, "a Go test binary holds more than 1 MB")
}

func TestMedian(t *testing.T) {
	assert.Equal(t, 0.0, median(nil))
	assert.Equal(t, 2.0, median([]float64{3, 1, 2}))
	assert.Equal(t, 2.5, median([]float64{4, 1, 3, 2}))
}

// TestConfig checks that each output's configuration has the shared tail
// input and exactly that one output, and loads only its own Go plugin.
func TestConfig(t *testing.T) {
	s, err := startStandIn()
	require.NoError(t, err)
	defer s.close()
	su := &setup{tag: "journals.*", paths: []string{"/d/*/*.jsonl"}, formatRoots: "cortex=/d",
		journalship: "/bin/out_journalship.so", grafanaLoki: "/tmp/out_grafana_loki.so", tailExtra: []string{"File_Cache_Advise Off"}}
	for out, want := range map[string]struct{ plugin, line string }{
		outNull:        {"", "Name              null"},
		outLoki:        {"", "Line_Format       json"},
		outJournalship: {"/bin/out_journalship.so", "Format_Roots      cortex=/d"},
		outGrafanaLoki: {"/tmp/out_grafana_loki.so", "Url               " + s.url() + pushPath},
	} {
		conf, plugin := su.config(out, "/state", s, 2020)
		assert.Equal(t, want.plugin, plugin, out)
		assert.Contains(t, conf, want.line, out)
		assert.Equal(t, 1, strings.Count(conf, "[OUTPUT]"), out)
		assert.Contains(t, conf, "Name              "+out+"\n", out)
		for _, in := range []string{"Read_from_Head    On", "Path_Key          file", "Offset_Key        offset",
			"DB                /state/tail.db", "Buffer_Chunk_Size 256k", "Buffer_Max_Size   1M", "Key               log",
			"File_Cache_Advise Off\n\n[OUTPUT]"} {
			assert.Contains(t, conf, in, out)
		}
	}
}
