package main

import (
	"bytes"
	"context"
	"flag"
	"io"
	"strings"
	"testing"

	"github.com/journalship/journalship/internal/lokiproc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDemo runs what `make run` runs against a real Loki and checks the
// report: every line landed, tokens by model match the journals, the
// crashed session's trail is shown, and a second ship is a no-op.
func TestDemo(t *testing.T) {
	loki := lokiproc.ForTest(t, lokiproc.Config{})
	var out bytes.Buffer
	d := &demo{out: &out, dir: t.TempDir(), lokiURL: loki.URL}
	require.NoError(t, d.run(context.Background(), 3, 5, false), out.String())
	s := out.String()
	lines := 0
	for _, f := range d.corpus.Files {
		lines += len(f.Lines)
	}
	assert.Contains(t, s, "shipping again is a no-op: 0 shipped")
	assert.Contains(t, s, "   "+itoa(lines)+" journal lines + 1 truncated-tail markers + "+itoa(len(d.corpus.Files))+" file summaries   {service_name=\"agent-sessions\"}")
	assert.Contains(t, s, `truncated_tail  {"journalship":"truncated_tail"`, "the crashed session's trail ends with the cut-off marker")
	assert.NotContains(t, s, "MISMATCH")
	assert.Equal(t, 3, strings.Count(s, "   ok\n"), "three models, each checked")
	assert.Contains(t, s, "audit trail of a crashed session")
	assert.Contains(t, s, "seq_gap")
}

func itoa(n int) string {
	var b []byte
	for n > 0 || len(b) == 0 {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
	}
	return string(b)
}

func TestSettingFlagsMirrorThePlugin(t *testing.T) {
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	get := settingFlags(fs, map[string]string{"Metrics_Address": "off"})
	require.NoError(t, fs.Parse([]string{"--loki-url", "http://loki:3100", "--dead-letter-path", "/tmp/d.jsonl"}))
	assert.Equal(t, "http://loki:3100", get("Loki_URL"))
	assert.Equal(t, "/tmp/d.jsonl", get("dead_letter_path"), "keys are case-insensitive like Fluent Bit's")
	assert.Equal(t, "off", get("Metrics_Address"))
	assert.Equal(t, "", get("Unknown"))
	var b bytes.Buffer
	printSettings(&b)
	assert.Contains(t, b.String(), "--loki-url")
}

func TestShipNeedsPaths(t *testing.T) {
	assert.ErrorContains(t, runShip(nil, io.Discard), "name at least one directory")
}
