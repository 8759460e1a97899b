//go:build unix

package audit

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// The test binary doubles as an unprivileged helper: run with
// AUDIT_HELPER_FILE or AUDIT_HELPER_TREE set, it audits that path and
// prints the result as JSON instead of running the tests.
func TestMain(m *testing.M) {
	if p := os.Getenv("AUDIT_HELPER_FILE"); p != "" {
		r, err := File(p, DefaultConfig())
		helperOut(os.Stdout, []Report{r}, err)
		os.Exit(0)
	}
	if p := os.Getenv("AUDIT_HELPER_TREE"); p != "" {
		var reports []Report
		_, err := Tree([]string{p}, DefaultConfig(), func(r Report) { reports = append(reports, r) })
		helperOut(os.Stdout, reports, err)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

type helperResult struct {
	Reports []Report
	Kind    Kind
	Err     string
}

func helperOut(w io.Writer, reports []Report, err error) {
	res := helperResult{Reports: reports}
	if e, ok := err.(*Error); ok {
		res.Kind, res.Err = e.Kind, e.Error()
	}
	_ = json.NewEncoder(w).Encode(res)
}

func mkfifo(t *testing.T, path string) {
	t.Helper()
	require.NoError(t, syscall.Mkfifo(path, 0o644))
}

// asUnprivileged runs this test binary as the nobody user with env set
// and decodes its result. Root reads any file, so a permission test as
// root must drop privileges; an unprivileged process checks directly.
func asUnprivileged(t *testing.T, env string) helperResult {
	t.Helper()
	bin, err := os.Executable()
	require.NoError(t, err)
	cmd := exec.Command(bin)
	if os.Geteuid() == 0 {
		// The helper binary must be reachable by nobody: copy it out of the
		// build directory (mode 0700) into a world-readable place.
		dir, err := os.MkdirTemp("", "audit-helper")
		require.NoError(t, err)
		t.Cleanup(func() { os.RemoveAll(dir) })
		require.NoError(t, os.Chmod(dir, 0o755))
		data, err := os.ReadFile(bin)
		require.NoError(t, err)
		cmd.Path = filepath.Join(dir, "audit.test")
		require.NoError(t, os.WriteFile(cmd.Path, data, 0o755))
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	}
	cmd.Env = append(os.Environ(), env)
	out, err := cmd.Output()
	if os.Geteuid() == 0 && err != nil {
		var ee *exec.ExitError
		if !asExitError(err, &ee) {
			t.Skipf("cannot run a helper as an unprivileged user here (%v): permission checks are not observable as root", err)
		}
	}
	require.NoError(t, err, "helper output: %s", out)
	var res helperResult
	require.NoError(t, json.Unmarshal(out, &res), "helper output: %s", out)
	return res
}

func asExitError(err error, target **exec.ExitError) bool {
	e, ok := err.(*exec.ExitError)
	if ok {
		*target = e
	}
	return ok
}

// fileAsUnprivileged audits path as an unprivileged user.
func fileAsUnprivileged(t *testing.T, path string) (Report, error) {
	t.Helper()
	// nobody must be able to reach the file's directory.
	require.NoError(t, chmodParents(path))
	res := asUnprivileged(t, "AUDIT_HELPER_FILE="+path)
	require.Len(t, res.Reports, 1)
	var err error
	if res.Kind != "" {
		err = &Error{Kind: res.Kind, Err: fmt.Errorf("%s", res.Err)}
	}
	return res.Reports[0], err
}

// chmodParents makes the directories of a test temp path traversable.
func chmodParents(path string) error {
	tmp := os.TempDir()
	for d := filepath.Dir(path); len(d) > len(tmp); d = filepath.Dir(d) {
		if err := os.Chmod(d, 0o755); err != nil {
			return err
		}
	}
	return nil
}
