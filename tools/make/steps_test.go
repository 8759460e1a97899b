// Package maketest checks the scripts `make test` runs its steps with.
package maketest

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStepsRunsEveryStep: a failing step does not stop the ones after it;
// each step's result is listed, the last line is the summary, and the exit
// status is 1 when any step failed; a silent step gets progress lines.
func TestStepsRunsEveryStep(t *testing.T) {
	cmd := exec.Command("bash", "steps.sh", "first", "echo one", "broken", "exit 3", "slow", "sleep 2.5; echo three")
	cmd.Env = append(cmd.Environ(), "HEARTBEAT=1")
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee, "%s", out)
	assert.Equal(t, 1, ee.ExitCode())
	s := string(out)
	assert.Contains(t, s, "=== step broken FAILED (exit 3)")
	assert.Contains(t, s, "three", "the step after the failure ran")
	assert.Contains(t, s, "... slow still running")
	assert.Contains(t, s, "  passed  first\n  passed  slow\n  FAILED  broken\n")
	lines := strings.Split(strings.TrimSpace(s), "\n")
	assert.Equal(t, "steps: 2 passed, 1 failed", lines[len(lines)-1])

	out, err = exec.Command("bash", "steps.sh", "only", "true").CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.True(t, strings.HasSuffix(string(out), "steps: 1 passed, 0 failed\n"), "%s", out)
}
