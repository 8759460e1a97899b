package main

import (
	"bytes"
	"flag"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

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
