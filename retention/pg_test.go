package retention

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
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/journalship/journalship/format"
)

// pgServer is a throwaway PostgreSQL cluster in a temp directory.
type pgServer struct {
	DSN string
	bin string
	dir string
	usr string // run as this user when we are root
	opt string // postgres options (port, socket dir)
}

// startPG starts Debian's PostgreSQL (`apt-get install postgresql`, as
// `make deps` does) for t: initdb in a temp dir, a free loopback port,
// trust auth. Without it the test fails when CI=true and skips otherwise.
func startPG(t *testing.T) *pgServer {
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
	s := &pgServer{bin: filepath.Dir(bins[len(bins)-1])}
	dir, err := os.MkdirTemp("", "retention-pg-")
	require.NoError(t, err)
	s.dir = dir
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
	if out, err := s.run("initdb", "-D", filepath.Join(dir, "data"), "-A", "trust", "-U", "postgres", "-N", "-E", "UTF8"); err != nil {
		unavailable("initdb: %v: %s", err, out)
	}
	port := freePort(t)
	s.opt = fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off", port, dir)
	if out, err := s.start(); err != nil {
		log, _ := os.ReadFile(filepath.Join(dir, "log"))
		unavailable("pg_ctl start: %v: %s\n%s", err, out, log)
	}
	t.Cleanup(func() { s.run("pg_ctl", "-D", filepath.Join(dir, "data"), "-m", "immediate", "stop") })
	s.DSN = fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port)
	return s
}

func (s *pgServer) start() ([]byte, error) {
	return s.run("pg_ctl", "-D", filepath.Join(s.dir, "data"), "-w", "-t", "60", "-l", filepath.Join(s.dir, "log"), "-o", s.opt, "start")
}

func (s *pgServer) run(tool string, args ...string) ([]byte, error) {
	bin := filepath.Join(s.bin, tool)
	var cmd *exec.Cmd
	if s.usr != "" {
		cmd = exec.Command("runuser", append([]string{"-u", s.usr, "--", bin}, args...)...)
	} else {
		cmd = exec.Command(bin, args...)
	}
	cmd.Dir = s.dir
	return cmd.CombinedOutput()
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

func (s *pgServer) exec(t *testing.T, sql string, args ...any) {
	t.Helper()
	ctx := context.Background()
	c, err := pgx.Connect(ctx, s.DSN)
	require.NoError(t, err)
	defer c.Close(ctx)
	_, err = c.Exec(ctx, sql, args...)
	require.NoError(t, err)
}

const (
	jobDone     = "01956a3b-7c4d-7e8f-9a1b-2c3d4e5f0001"
	jobRunning  = "01956a3b-7c4d-7e8f-9a1b-2c3d4e5f0002"
	jobFailed   = "01956a3b-7c4d-7e8f-9a1b-2c3d4e5f0003"
	jobNullTime = "01956a3b-7c4d-7e8f-9a1b-2c3d4e5f0004"
	jobMissing  = "01956a3b-7c4d-7e8f-9a1b-2c3d4e5f0099"
)

// TestPGStatus runs the PostgreSQL source against a real server: terminal
// (any case), non-terminal, NULL finished_at, missing, a directory name
// that is not a UUID, a bad query, and a server that went away.
func TestPGStatus(t *testing.T) {
	srv := startPG(t)
	srv.exec(t, `CREATE TYPE job_status AS ENUM ('PENDING','RUNNING','WAITING_FOR_APPROVAL','COMPLETED','FAILED','CANCELLED','completed')`)
	srv.exec(t, `CREATE TABLE job (id uuid PRIMARY KEY, status job_status NOT NULL, finished_at timestamptz)`)
	fin := time.Date(2026, 3, 9, 6, 0, 0, 0, time.UTC)
	srv.exec(t, `INSERT INTO job VALUES ($1,'COMPLETED',$5), ($2,'RUNNING',NULL), ($3,'FAILED',$5), ($4,'completed',NULL)`,
		jobDone, jobRunning, jobFailed, jobNullTime, fin)

	cfg := DefaultPGConfig()
	cfg.DSN = srv.DSN
	st, err := NewPGStatus(cfg)
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	ctx := context.Background()
	require.NoError(t, st.Ping(ctx))

	cases := []struct {
		job  string
		want format.GroupState
	}{
		{jobDone, format.GroupState{Terminal: true, Status: "COMPLETED", FinishedAt: fin}},
		{jobRunning, format.GroupState{Status: "RUNNING"}},
		{jobFailed, format.GroupState{Terminal: true, Status: "FAILED", FinishedAt: fin}},
		{jobNullTime, format.GroupState{Terminal: true, Status: "completed"}},
		{jobMissing, format.GroupState{Terminal: true, Status: "missing"}},
		{"not-a-uuid", format.GroupState{Terminal: true, Status: "missing"}},
		{"x'); DROP TABLE job; --", format.GroupState{Terminal: true, Status: "missing"}},
	}
	for _, c := range cases {
		t.Run(c.job, func(t *testing.T) {
			got, err := st.Group(ctx, "/data/sessions/"+c.job)
			require.NoError(t, err)
			assert.Equal(t, c.want.Terminal, got.Terminal)
			assert.Equal(t, c.want.Status, got.Status)
			assert.True(t, c.want.FinishedAt.Equal(got.FinishedAt), "finished_at %s, want %s", got.FinishedAt, c.want.FinishedAt)
		})
	}
	srv.exec(t, `SELECT 1 FROM job`) // the injection attempt did nothing

	t.Run("refused query", func(t *testing.T) {
		bad := cfg
		bad.Query = "SELECT status, finished_at FROM jobs WHERE id = $1"
		b, err := NewPGStatus(bad)
		require.NoError(t, err)
		defer b.Close()
		_, err = b.Group(ctx, "/data/sessions/"+jobDone)
		var se *StatusError
		require.ErrorAs(t, err, &se)
		assert.True(t, se.Unreachable, "a refused query stops the sweep's deletions")
	})

	t.Run("sweep with postgres", func(t *testing.T) {
		e := newEnv(t)
		e.now = fin.Add(25 * time.Hour)
		old := fin.Add(-time.Hour)
		done := e.write(jobDone, sess1, session(old, old, ""), old) // the journal alone would say "running"
		running := e.write(jobRunning, sess1, session(old, old, ""), old)
		missing := e.write(jobMissing, sess1, session(old, old, "completed"), old)
		for _, p := range []string{done, running, missing} {
			e.shipped(p)
		}
		r := e.sweep(st)
		assert.True(t, decision(t, r, done).Delete)
		assert.Equal(t, KeepJobActive, decision(t, r, running).Reason)
		assert.True(t, decision(t, r, missing).Delete, "a missing job counts as deleted, its files' mtime + 24h passed")
	})

	t.Run("unreachable", func(t *testing.T) {
		e := newEnv(t)
		e.now = fin.Add(25 * time.Hour)
		old := fin.Add(-8 * 24 * time.Hour)
		p := e.write(jobDone, sess1, session(old, old, "completed"), old)
		e.shipped(p)
		dead := cfg
		dead.DSN = fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable&connect_timeout=2", freePort(t))
		d, err := NewPGStatus(dead)
		require.NoError(t, err)
		defer d.Close()
		a := e.agent(d)
		r, err := a.Sweep(ctx)
		require.NoError(t, err)
		assert.True(t, r.StatusUnavailable)
		assert.Equal(t, KeepStatusUnavailable, decision(t, r, p).Reason, "not even the max-age rule deletes")
		assert.True(t, exists(p))
		assert.Equal(t, 1.0, testutilValue(a.Metrics(), "postgres"))
	})

	t.Run("server stopped and restarted", func(t *testing.T) {
		_, err := srv.run("pg_ctl", "-D", filepath.Join(srv.dir, "data"), "-m", "fast", "-w", "stop")
		require.NoError(t, err)
		var se *StatusError
		require.ErrorAs(t, st.Ping(ctx), &se)
		_, err = st.Group(ctx, "/data/sessions/"+jobDone)
		require.ErrorAs(t, err, &se)
		assert.True(t, se.Unreachable)
		out, err := srv.start()
		require.NoError(t, err, "%s", out)
		got, err := st.Group(ctx, "/data/sessions/"+jobDone)
		require.NoError(t, err, "reconnects")
		assert.True(t, got.Terminal)
	})
}

func TestPGConfigValidate(t *testing.T) {
	cases := []struct {
		name  string
		edit  func(*PGConfig)
		field string
	}{
		{"no dsn", func(c *PGConfig) { c.DSN = "" }, "pg-dsn"},
		{"bad dsn", func(c *PGConfig) { c.DSN = "postgres://u:secret@host:notaport/db" }, "pg-dsn"},
		{"bad key=value dsn", func(c *PGConfig) { c.DSN = "host=h password=secret port=x" }, "pg-dsn"},
		{"no $1", func(c *PGConfig) { c.Query = "SELECT status, finished_at FROM job" }, "pg-query"},
		{"no statuses", func(c *PGConfig) { c.TerminalStatuses = nil }, "TerminalStatuses"},
		{"no timeout", func(c *PGConfig) { c.Timeout = 0 }, "Timeout"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := DefaultPGConfig()
			cfg.DSN = "postgres://u@localhost/db"
			c.edit(&cfg)
			var ce *ConfigError
			require.ErrorAs(t, cfg.Validate(), &ce)
			assert.Equal(t, c.field, ce.Field)
			assert.NotContains(t, ce.Error(), "secret")
		})
	}
}
