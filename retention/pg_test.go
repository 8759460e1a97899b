package retention

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/journalship/journalship/format/cortex/jobdb"
	"github.com/journalship/journalship/internal/pgproc"
)

const (
	jobDone    = "01956a3b-7c4d-7e8f-9a1b-2c3d4e5f0001"
	jobRunning = "01956a3b-7c4d-7e8f-9a1b-2c3d4e5f0002"
	jobMissing = "01956a3b-7c4d-7e8f-9a1b-2c3d4e5f0099"
)

// TestSweepWithPostgres: with the job database as the status source, a
// job is terminal by its row whatever its journals say, a job missing
// from the table counts as deleted, and a database that cannot be
// reached stops every deletion, the max-age rule's included.
func TestSweepWithPostgres(t *testing.T) {
	srv := pgproc.Start(t)
	srv.Exec(t, `CREATE TABLE job (id uuid PRIMARY KEY, status text NOT NULL, finished_at timestamptz)`)
	fin := time.Date(2026, 3, 9, 6, 0, 0, 0, time.UTC)
	srv.Exec(t, `INSERT INTO job VALUES ($1,'COMPLETED',$3), ($2,'RUNNING',NULL)`, jobDone, jobRunning, fin)
	cfg := jobdb.DefaultConfig()
	cfg.DSN = srv.DSN
	st, err := jobdb.New(cfg)
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	ctx := context.Background()

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
		dead.DSN = fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable&connect_timeout=2", pgproc.FreePort(t))
		d, err := jobdb.New(dead)
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

}
