package main

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// envRunMain makes the test binary run journalship's main instead of the
// tests, so a test can exec it as the command.
const envRunMain = "JOURNALSHIP_TEST_RUN_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(envRunMain) == "1" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// underLimits runs `journalship exec --nofile want -- sh -c 'ulimit -Sn'`
// from a shell that first set the soft (and maybe hard) limit as a
// container runtime would, and returns the soft limit the program saw and
// journalship's stderr.
func underLimits(t *testing.T, setup string, want int) (int, string) {
	t.Helper()
	self, err := os.Executable()
	require.NoError(t, err)
	cmd := exec.Command("/bin/sh", "-c", setup+` && exec "$0" exec --nofile `+strconv.Itoa(want)+` -- sh -c 'ulimit -Sn'`, self)
	cmd.Env = append(os.Environ(), envRunMain+"=1")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, stderr.String())
	n, err := strconv.Atoi(strings.TrimSpace(string(out)))
	require.NoError(t, err, string(out))
	return n, stderr.String()
}

func TestExecRaisesTheOpenFileLimit(t *testing.T) {
	hard, err := exec.Command("/bin/sh", "-c", "ulimit -Hn").Output()
	require.NoError(t, err)
	h, err := strconv.Atoi(strings.TrimSpace(string(hard)))
	if err != nil || h < 4096 {
		t.Fatalf("this test needs a hard open-file limit of at least 4096, have %q", hard)
	}
	got, stderr := underLimits(t, "ulimit -Sn 1024", 4096)
	assert.GreaterOrEqual(t, got, 4096, "the soft limit of 1024 is raised for the program")
	assert.Empty(t, stderr)

	got, stderr = underLimits(t, "ulimit -Sn 1024 && ulimit -Hn 2048", 4096)
	if os.Geteuid() != 0 {
		assert.Equal(t, 2048, got, "raised up to the hard limit, which an unprivileged process cannot raise")
		assert.Contains(t, stderr, "the open-file limit is 2048, below the 4096 asked")
	}
}

func TestExecUsage(t *testing.T) {
	var stderr strings.Builder
	assert.Equal(t, exitUsage, run([]string{"exec", "--nofile", "10"}, os.Stdout, &stderr))
	assert.Contains(t, stderr.String(), "name the program to run")
	stderr.Reset()
	assert.Equal(t, exitUsage, run([]string{"exec", "--", "no-such-program-here"}, os.Stdout, &stderr))
}
