package output

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/journalship/journalship/pipeline"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func getter(m map[string]string) Getter {
	return func(k string) string {
		for key, v := range m {
			if strings.EqualFold(key, k) {
				return v
			}
		}
		return ""
	}
}

func TestDefaults(t *testing.T) {
	c, err := parseConfig(getter(nil))
	require.NoError(t, err)
	assert.Equal(t, "http://127.0.0.1:3100", c.loki.URL)
	assert.Equal(t, "log", c.chunk.LogKey)
	assert.Equal(t, "file", c.chunk.PathKey)
	assert.Equal(t, "offset", c.chunk.OffsetKey)
	assert.Equal(t, map[string]string{"service_name": "agent-sessions"}, c.pipeline.Enrich.Static)
	assert.Equal(t, []pipeline.Key{pipeline.KeyFormat, pipeline.KeyEventType, pipeline.KeyNode}, c.pipeline.Layout.Labels)
	assert.Equal(t, pipeline.Rewrite, c.pipeline.OldEntries)
	assert.Equal(t, "/var/lib/journalship/ledger.db", c.ledger.Path)
	assert.Equal(t, "127.0.0.1:2021", c.metrics.Address)
	assert.Equal(t, levelInfo, c.logLevel)
	assert.False(t, c.loki.InsecureSkipVerify)
}

func TestEverySettingIsRead(t *testing.T) {
	c, err := parseConfig(getter(map[string]string{
		"loki_url": "https://loki:3100", "Tenant_ID": "agents", "HTTP_User": "u", "HTTP_Passwd": "p$x",
		"Bearer_Token": "", "TLS_Verify": "off", "Headers": "X-A=1, X-B = two",
		"Timeout": "3", "Max_Request_Bytes": "2M", "Log_Key": "message", "Path_Key": "path", "Offset_Key": "off",
		"Labels": "service_name=agents,cluster=prod", "Label_Keys": "event_type", "Metadata_Keys": "job_id,seq",
		"Node_Name": "n1", "Known_Schema_Versions": "1,2", "Max_Line_Bytes": "64K", "Old_Entries": "dead_letter",
		"Max_Entry_Age": "24h", "Max_Future_Skew": "1m", "Max_Behind": "30m", "Ledger_Path": "none", "Dead_Letter_Path": "/tmp/dl.jsonl",
		"Metrics_Address": "off", "Lookbehind_Window": "8K", "Log_Level": "debug",
	}))
	require.NoError(t, err)
	assert.Equal(t, "agents", c.loki.TenantID)
	assert.Equal(t, "p$x", c.loki.Password, "secrets are taken verbatim")
	assert.True(t, c.loki.InsecureSkipVerify)
	assert.Equal(t, map[string]string{"X-A": "1", "X-B": "two"}, c.loki.Headers)
	assert.Equal(t, 3*time.Second, c.loki.Timeout)
	assert.Equal(t, 2<<20, c.loki.MaxRequestBytes)
	assert.Equal(t, "message", c.chunk.LogKey)
	assert.Equal(t, map[string]string{"service_name": "agents", "cluster": "prod"}, c.pipeline.Enrich.Static)
	assert.Equal(t, []pipeline.Key{pipeline.KeyJobID, pipeline.KeySeq}, c.pipeline.Layout.Metadata)
	assert.Equal(t, "1,2", c.pipeline.Formats.Settings["Known_Schema_Versions"], "a format's own setting")
	assert.Equal(t, 64<<10, c.pipeline.MaxLineBytes)
	assert.Equal(t, pipeline.DeadLetter, c.pipeline.OldEntries)
	assert.Equal(t, 24*time.Hour, c.pipeline.MaxEntryAge)
	assert.Equal(t, 30*time.Minute, c.pipeline.MaxBehind)
	assert.Equal(t, 30*time.Minute, c.loki.MaxBehind, "the client explains Loki's counts with the same window")
	assert.True(t, c.ledgerOff)
	assert.Empty(t, c.metrics.Address)
	assert.Equal(t, 8<<10, c.pipeline.Lookbehind.Window)
	assert.Equal(t, levelDebug, c.logLevel)
}

func TestBadSettingsNameTheSetting(t *testing.T) {
	cases := map[string]map[string]string{
		"TLS_Verify":        {"TLS_Verify": "maybe"},
		"Timeout":           {"Timeout": "soon"},
		"Max_Behind":        {"Max_Behind": "-1h"},
		"Max_Request_Bytes": {"Max_Request_Bytes": "-5"},
		"Label_Keys":        {"Label_Keys": "color"},
		"Headers":           {"Headers": "no-equals"},
		"Log_Level":         {"Log_Level": "loud"},
		"Labels":            {"Labels": "bad-name=x"},
		"stream per value":  {"Label_Keys": "job_id", "Metadata_Keys": "seq"},
		// A format's own setting, checked by its format.
		"Known_Schema_Versions": {"Known_Schema_Versions": "1,zero"},
	}
	for want, settings := range cases {
		t.Run(want, func(t *testing.T) {
			_, err := parseConfig(getter(settings))
			require.Error(t, err)
			assert.Contains(t, err.Error(), want)
		})
	}
}

var update = flag.Bool("update", false, "rewrite the generated settings table of docs/settings.md")

// The generated part of docs/settings.md lies between these lines.
const (
	settingsBegin = "<!-- The table is generated from output.Settings: go test ./output -run TestSettingsDoc -update -->\n"
	settingsEnd   = "<!-- End of the generated table. -->\n"
)

// TestSettingsDocIsGenerated: docs/settings.md's table is Settings', row
// for row (the formats' own settings included); -update rewrites it.
func TestSettingsDocIsGenerated(t *testing.T) {
	const path = "../docs/settings.md"
	doc, err := os.ReadFile(path)
	require.NoError(t, err)
	before, rest, ok := strings.Cut(string(doc), settingsBegin)
	require.True(t, ok, "%s: no %q", path, settingsBegin)
	_, after, ok := strings.Cut(rest, settingsEnd)
	require.True(t, ok, "%s: no %q", path, settingsEnd)
	want := before + settingsBegin + settingsTable() + settingsEnd + after
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(want), 0o644))
		return
	}
	assert.Equal(t, want, string(doc), "%s is stale: go test ./output -run TestSettingsDoc -update", path)
}

// settingsTable is the Markdown table of Settings.
func settingsTable() string {
	var b strings.Builder
	b.WriteString("| Setting | Default | What it does |\n|---|---|---|\n")
	for _, s := range Settings {
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", s.Name, mdDefault(s.Default), strings.ReplaceAll(s.Help, "|", `\|`))
	}
	return b.String()
}

func mdDefault(d string) string {
	if d == "" {
		return "—"
	}
	return "`" + d + "`"
}

// TestRedactSettingsNameTheSetting: a bad redaction setting fails the
// start naming the setting, as check-config shows it.
func TestRedactSettingsNameTheSetting(t *testing.T) {
	for setting, value := range map[string]string{
		"Redact_Rules":       "/nonexistent/gitleaks.toml",
		"Redact_Allow_Rules": "no-such-rule",
		"Redact_Allow_Paths": "[",
	} {
		_, err := CheckSettings(func(k string) string {
			if k == setting {
				return value
			}
			return ""
		})
		require.Error(t, err, setting)
		assert.Contains(t, err.Error(), "setting "+setting, setting)
	}
	_, err := CheckSettings(func(k string) string {
		return map[string]string{"Redact_Hash": "on", "Redact_Key_File": ""}[k]
	})
	assert.NoError(t, err, "an empty Redact_Key_File keeps the default path")
}
