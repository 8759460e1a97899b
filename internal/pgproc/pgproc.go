// Package pgproc starts a throwaway PostgreSQL for tests: Debian's
// server binaries, a cluster in a temp directory, a free loopback port.
package pgproc

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"
)

// Server is a throwaway PostgreSQL cluster in a temp directory.
type Server struct {
	// DSN connects as the superuser postgres, trusted.
	DSN string
	// Dir holds the cluster (Dir/data) and its log.
	Dir string
	bin string
	usr string // run as this user when we are root
	opt string // postgres options (port, socket dir)
}

// Start starts Debian's PostgreSQL (`apt-get install postgresql`, as
// `make deps` does) for t: initdb in a temp dir, a free loopback port,
// trust auth. Without it the test fails when CI=true and skips otherwise.
func Start(t testing.TB) *Server {
	t.Helper()
	unavailable := func(format string, args ...any) {
		t.Helper()
		msg := fmt.Sprintf(format, args...)
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true and PostgreSQL cannot start: %s", msg)
		}
		t.Skipf("PostgreSQL cannot start (%s); `apt-get install postgresql` (make deps) to run this test", msg)
	}
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(bins) == 0 {
		unavailable("no /usr/lib/postgresql/*/bin/initdb")
	}
	sort.Strings(bins)
	s := &Server{bin: filepath.Dir(bins[len(bins)-1])}
	dir, err := os.MkdirTemp("", "journalship-pg-")
	require.NoError(t, err)
	s.Dir = dir
	t.Cleanup(func() { os.RemoveAll(dir) })
	if os.Geteuid() == 0 {
		s.usr = "postgres"
		u, err := user.Lookup(s.usr)
		if err != nil {
			s.usr = "nobody"
			if u, err = user.Lookup(s.usr); err != nil {
				unavailable("running as root and no postgres or nobody user to run it as")
			}
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		require.NoError(t, os.Chown(dir, uid, gid))
	}
	if out, err := s.Run("initdb", "-D", filepath.Join(dir, "data"), "-A", "trust", "-U", "postgres", "-N", "-E", "UTF8"); err != nil {
		unavailable("initdb: %v: %s", err, out)
	}
	port := FreePort(t)
	s.opt = fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off", port, dir)
	if out, err := s.Start(); err != nil {
		log, _ := os.ReadFile(filepath.Join(dir, "log"))
		unavailable("pg_ctl start: %v: %s\n%s", err, out, log)
	}
	t.Cleanup(func() { s.Run("pg_ctl", "-D", filepath.Join(dir, "data"), "-m", "immediate", "stop") })
	s.DSN = fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port)
	return s
}

// Start starts the stopped server again.
func (s *Server) Start() ([]byte, error) {
	return s.Run("pg_ctl", "-D", filepath.Join(s.Dir, "data"), "-w", "-t", "60", "-l", filepath.Join(s.Dir, "log"), "-o", s.opt, "start")
}

// Run runs one of PostgreSQL's tools (pg_ctl, initdb) on the cluster,
// as the user the server runs as.
func (s *Server) Run(tool string, args ...string) ([]byte, error) {
	bin := filepath.Join(s.bin, tool)
	var cmd *exec.Cmd
	if s.usr != "" {
		cmd = exec.Command("runuser", append([]string{"-u", s.usr, "--", bin}, args...)...)
	} else {
		cmd = exec.Command(bin, args...)
	}
	cmd.Dir = s.Dir
	return cmd.CombinedOutput()
}

// FreePort returns a loopback TCP port nothing listens on now.
func FreePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// Exec runs one SQL statement.
func (s *Server) Exec(t testing.TB, sql string, args ...any) {
	t.Helper()
	ctx := context.Background()
	c, err := pgx.Connect(ctx, s.DSN)
	require.NoError(t, err)
	defer c.Close(ctx)
	_, err = c.Exec(ctx, sql, args...)
	require.NoError(t, err)
}
