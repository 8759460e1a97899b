package retention

import (
	"io"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const envPermChild = "RETENTION_PERMISSION_CHILD"

// TestPermissionErrors: a job directory that cannot be listed and one
// whose files cannot be deleted keep their files (counted and logged, the
// ledger rows kept) while other jobs are swept. Root ignores permissions,
// so as root the test re-runs itself as nobody.
func TestPermissionErrors(t *testing.T) {
	if os.Geteuid() == 0 {
		rerunAsNobody(t)
		return
	}
	e := newEnv(t)
	old := e.now.Add(-30 * time.Hour)
	var paths []string
	for _, job := range []string{"job-ok", "job-readonly", "job-locked"} {
		p := e.write(job, sess1, session(old, old, "completed"), old)
		e.shipped(p)
		paths = append(paths, p)
	}
	ro, locked := filepath.Dir(paths[1]), filepath.Dir(paths[2])
	require.NoError(t, os.Chmod(ro, 0o555))
	require.NoError(t, os.Chmod(locked, 0o000))
	t.Cleanup(func() { os.Chmod(ro, 0o755); os.Chmod(locked, 0o755) })

	a := e.agent(nil)
	r, err := a.Sweep(t.Context())
	require.NoError(t, err)
	assert.True(t, decision(t, r, paths[0]).Delete)
	assert.Equal(t, KeepDeleteFailed, decision(t, r, paths[1]).Reason)
	assert.Equal(t, KeepUnreadableDir, decision(t, r, locked).Reason)
	assert.Equal(t, "degraded", r.Outcome())
	assert.Contains(t, e.log.String(), "cannot delete "+paths[1])
	assert.Contains(t, e.log.String(), "cannot list "+locked)
	require.NoError(t, os.Chmod(locked, 0o755))
	for _, p := range paths[1:] {
		assert.True(t, exists(p))
		st, err := e.ledger.File(t.Context(), p)
		require.NoError(t, err)
		assert.True(t, st.Finished, "%s: the ledger row stays with its file", p)
	}
}

// rerunAsNobody runs this test in a copy of the test binary as nobody.
func rerunAsNobody(t *testing.T) {
	if os.Getenv(envPermChild) != "" {
		t.Fatal("still root in the child")
	}
	u, err := user.Lookup("nobody")
	if err != nil {
		t.Skipf("running as root without a nobody user to drop to: %v", err)
	}
	runuser, err := exec.LookPath("runuser")
	if err != nil {
		t.Skipf("running as root without runuser to drop privileges: %v", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	dir, err := os.MkdirTemp("", "retention-perm-")
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	require.NoError(t, os.Chown(dir, uid, gid))
	self, err := os.Executable()
	require.NoError(t, err)
	bin := filepath.Join(dir, "retention.test")
	copyFile(t, self, bin)
	cmd := exec.Command(runuser, "-u", "nobody", "--", bin, "-test.run", "^TestPermissionErrors$", "-test.v", "-test.count=1")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), envPermChild+"=1", "TMPDIR="+dir, "HOME="+dir)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "as nobody:\n%s", out)
	require.True(t, strings.Contains(string(out), "--- PASS: TestPermissionErrors"), "the child ran the test:\n%s", out)
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	src, err := os.Open(from)
	require.NoError(t, err)
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	require.NoError(t, err)
	_, err = io.Copy(dst, src)
	require.NoError(t, err)
	require.NoError(t, dst.Close())
}
