package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runCLI runs a command line as main does and returns its exit status,
// stdout and stderr.
func runCLI(args ...string) (int, string, string) {
	var out, errs bytes.Buffer
	code := run(args, &out, &errs)
	return code, out.String(), errs.String()
}

// TestEveryCommandHelps: --help and -h print a synopsis, what the command
// does, its own flags and (for commands that ship) the plugin settings in
// a group of their own, to stdout, and exit 0.
func TestEveryCommandHelps(t *testing.T) {
	shipping := map[string]bool{"ship": true, "finalize": true, "retention": true}
	for _, cmd := range []string{"ship", "finalize", "retention", "demo", "simulate", "verify", "check-config"} {
		for _, h := range []string{"--help", "-h"} {
			code, out, errs := runCLI(cmd, h)
			assert.Equal(t, 0, code, "%s %s: %s", cmd, h, errs)
			assert.Empty(t, errs, "%s %s", cmd, h)
			assert.True(t, strings.HasPrefix(out, "Usage: journalship "+cmd), "%s %s:\n%s", cmd, h, out)
			assert.NotContains(t, out, "flag: help requested")
			if shipping[cmd] {
				own := strings.Index(out, "\nFlags:\n")
				settings := strings.Index(out, "\nPlugin settings")
				assert.True(t, own > 0 && settings > own, "%s: own flags, then the settings:\n%s", cmd, out)
				assert.Contains(t, out[settings:], "--loki-url string")
				assert.NotContains(t, out[settings:], "--stale-after", "an own flag is not in the settings group")
			} else {
				assert.NotContains(t, out, "--loki-url string\n      Loki's base URL", "%s takes no plugin settings", cmd)
			}
		}
	}
}

// TestUsageErrorsExit64: a bad flag, a missing or nonexistent path is a
// usage error: exit 64, the error, the synopsis and where to read more, on
// stderr.
func TestUsageErrorsExit64(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope")
	for _, args := range [][]string{
		{"ship", "--bogus", "x"},
		{"ship"},
		{"ship", "--quiet", missing},
		{"finalize", missing},
		{"verify", missing},
		{"verify", "--frobnicate"},
		{"retention", "--once", "/data/sessions"},
		{"simulate", "--dir", "/x", "--jobs", "0"},
		{"demo", "extra"},
		{"nosuchcommand"},
		{},
	} {
		code, out, errs := runCLI(args...)
		assert.Equal(t, exitUsage, code, "%q: %s", args, errs)
		assert.Empty(t, out, "%q", args)
		if len(args) > 0 && args[0] != "nosuchcommand" {
			assert.Contains(t, errs, "Usage: journalship "+args[0], "%q", args)
			assert.Contains(t, errs, "journalship "+args[0]+" --help", "%q", args)
		}
	}
	_, _, errs := runCLI("ship", "--quiet", missing)
	assert.Contains(t, errs, missing+": no such file or directory")
}

// TestSettingsListIsReadable: every setting is a block of its own, so a
// long default (Metadata_Keys) does not break a table.
func TestSettingsListIsReadable(t *testing.T) {
	code, out, _ := runCLI("settings")
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "\nMetadata_Keys  --metadata-keys\n    Per-line values sent as structured metadata.\n    default: job_id,")
	assert.Contains(t, out, "\nTenant_Fallback  --tenant-fallback\n    Tenant of journals no tenant rule places; empty: their lines are dead-lettered (reason no_tenant), never sent to another tenant.\n    default: (none)\n")
}

// TestCheckConfig: the shipped configuration passes (its notes printed);
// a misspelt key fails with the setting meant.
func TestCheckConfig(t *testing.T) {
	code, out, errs := runCLI("check-config", "../../fluent-bit.conf")
	assert.Equal(t, 0, code, "%s%s", out, errs)
	assert.NotContains(t, out, ": error: ")
	bad := filepath.Join(t.TempDir(), "fluent-bit.conf")
	require.NoError(t, os.WriteFile(bad, []byte("[OUTPUT]\n    Name journalship\n    Match *\n    Loki_Ulr http://x:3100\n"), 0o644))
	code, out, _ = runCLI("check-config", bad)
	assert.Equal(t, 1, code)
	assert.Contains(t, out, bad+":4: error: [OUTPUT journalship] Loki_Ulr: unknown key: neither Fluent Bit nor journalship takes it; did you mean Loki_URL?")
	code, _, _ = runCLI("check-config", filepath.Join(t.TempDir(), "nope.conf"))
	assert.Equal(t, exitUsage, code)
}
