package jobdb

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/internal/pgproc"
)

const (
	jobDone     = "01956a3b-7c4d-7e8f-9a1b-2c3d4e5f0001"
	jobRunning  = "01956a3b-7c4d-7e8f-9a1b-2c3d4e5f0002"
	jobFailed   = "01956a3b-7c4d-7e8f-9a1b-2c3d4e5f0003"
	jobNullTime = "01956a3b-7c4d-7e8f-9a1b-2c3d4e5f0004"
	jobMissing  = "01956a3b-7c4d-7e8f-9a1b-2c3d4e5f0099"
)

// TestStatus runs the PostgreSQL source against a real server: terminal
// (any case), non-terminal, NULL finished_at, missing, a directory name
// that is not a UUID, a bad query, and a server that went away.
func TestStatus(t *testing.T) {
	srv := pgproc.Start(t)
	srv.Exec(t, `CREATE TYPE job_status AS ENUM ('PENDING','RUNNING','WAITING_FOR_APPROVAL','COMPLETED','FAILED','CANCELLED','completed')`)
	srv.Exec(t, `CREATE TABLE job (id uuid PRIMARY KEY, status job_status NOT NULL, finished_at timestamptz)`)
	fin := time.Date(2026, 3, 9, 6, 0, 0, 0, time.UTC)
	srv.Exec(t, `INSERT INTO job VALUES ($1,'COMPLETED',$5), ($2,'RUNNING',NULL), ($3,'FAILED',$5), ($4,'completed',NULL)`,
		jobDone, jobRunning, jobFailed, jobNullTime, fin)

	cfg := DefaultConfig()
	cfg.DSN = srv.DSN
	st, err := New(cfg)
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
	srv.Exec(t, `SELECT 1 FROM job`) // the injection attempt did nothing

	t.Run("refused query", func(t *testing.T) {
		bad := cfg
		bad.Query = "SELECT status, finished_at FROM jobs WHERE id = $1"
		b, err := New(bad)
		require.NoError(t, err)
		defer b.Close()
		_, err = b.Group(ctx, "/data/sessions/"+jobDone)
		var se *format.GroupError
		require.ErrorAs(t, err, &se)
		assert.True(t, se.Unreachable, "a refused query stops the sweep's deletions")
	})

	t.Run("server stopped and restarted", func(t *testing.T) {
		_, err := srv.Run("pg_ctl", "-D", filepath.Join(srv.Dir, "data"), "-m", "fast", "-w", "stop")
		require.NoError(t, err)
		var se *format.GroupError
		require.ErrorAs(t, st.Ping(ctx), &se)
		_, err = st.Group(ctx, "/data/sessions/"+jobDone)
		require.ErrorAs(t, err, &se)
		assert.True(t, se.Unreachable)
		out, err := srv.Start()
		require.NoError(t, err, "%s", out)
		got, err := st.Group(ctx, "/data/sessions/"+jobDone)
		require.NoError(t, err, "reconnects")
		assert.True(t, got.Terminal)
	})
}

func TestConfigValidate(t *testing.T) {
	cases := []struct {
		name  string
		edit  func(*Config)
		field string
	}{
		{"no dsn", func(c *Config) { c.DSN = "" }, "pg-dsn"},
		{"bad dsn", func(c *Config) { c.DSN = "postgres://u:secret@host:notaport/db" }, "pg-dsn"},
		{"bad key=value dsn", func(c *Config) { c.DSN = "host=h password=secret port=x" }, "pg-dsn"},
		{"no $1", func(c *Config) { c.Query = "SELECT status, finished_at FROM job" }, "pg-query"},
		{"no statuses", func(c *Config) { c.TerminalStatuses = nil }, "TerminalStatuses"},
		{"no timeout", func(c *Config) { c.Timeout = 0 }, "Timeout"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.DSN = "postgres://u@localhost/db"
			c.edit(&cfg)
			var ce *ConfigError
			require.ErrorAs(t, cfg.Validate(), &ce)
			assert.Equal(t, c.field, ce.Field)
			assert.NotContains(t, ce.Error(), "secret")
		})
	}
}
