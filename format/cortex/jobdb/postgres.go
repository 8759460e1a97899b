// Package jobdb reads Cortex Plane job states from its PostgreSQL
// database: a format.GroupStatus the verdict asks instead of the jobs'
// journals (journalship retention --status postgres).
package jobdb

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/journalship/journalship/format"
)

// DefaultQuery reads a job's status and finished_at by id. status::text
// lets the column be an enum; finished_at may be NULL.
const DefaultQuery = "SELECT status::text, finished_at FROM job WHERE id = $1"

// DefaultTerminalStatuses are the seed's terminal job states (compared
// case-insensitively).
var DefaultTerminalStatuses = []string{"COMPLETED", "FAILED", "CANCELLED"}

// Config says how to ask PostgreSQL for job states.
type Config struct {
	// DSN is a libpq connection string or URL
	// (postgres://user@host:5432/db?sslmode=...). Required.
	DSN string
	// Query takes the job id (the job directory's name) as $1 and returns
	// one row of (status text, finished_at timestamptz NULL). Default
	// DefaultQuery.
	Query string
	// TerminalStatuses are the status values that mean the job is over.
	// Default COMPLETED, FAILED, CANCELLED.
	TerminalStatuses []string
	// Timeout bounds connecting and each query. Default 10s.
	Timeout time.Duration
}

// DefaultConfig returns the defaults (DSN is left empty).
func DefaultConfig() Config {
	return Config{Query: DefaultQuery, TerminalStatuses: append([]string(nil), DefaultTerminalStatuses...), Timeout: 10 * time.Second}
}

// Validate checks the configuration; the error is a *ConfigError.
func (c Config) Validate() error {
	switch {
	case c.DSN == "":
		return &ConfigError{"pg-dsn", "", "a PostgreSQL connection string is required with --status postgres"}
	case !strings.Contains(c.Query, "$1"):
		return &ConfigError{"pg-query", c.Query, "must take the job id as $1"}
	case len(c.TerminalStatuses) == 0:
		return &ConfigError{"TerminalStatuses", "", "at least one terminal status is required"}
	case c.Timeout <= 0:
		return &ConfigError{"Timeout", c.Timeout.String(), "must be > 0"}
	}
	if _, err := pgx.ParseConfig(c.DSN); err != nil {
		return &ConfigError{"pg-dsn", redact(c.DSN), err.Error()}
	}
	return nil
}

// redact hides the password of a URL (postgres://user:pw@host) or a
// key=value DSN (password=pw) in error messages.
func redact(dsn string) string {
	if i := strings.Index(dsn, "://"); i >= 0 {
		rest := dsn[i+3:]
		host := strings.IndexAny(rest, "/?")
		if host < 0 {
			host = len(rest)
		}
		if at := strings.LastIndex(rest[:host], "@"); at >= 0 {
			if colon := strings.Index(rest[:at], ":"); colon >= 0 {
				return dsn[:i+3] + rest[:colon+1] + "xxxxx" + rest[at:]
			}
		}
		return dsn
	}
	fields := strings.Fields(dsn)
	for i, f := range fields {
		if strings.HasPrefix(f, "password=") {
			fields[i] = "password=xxxxx"
		}
	}
	return strings.Join(fields, " ")
}

// Status reads job states from PostgreSQL, as the format's cleanup cron (docs/formats/cortex-plane.md, section 5)
// does. A job missing from the table counts as deleted: terminal, with
// finished_at unknown (the agent then counts PostTerminal from the newest
// file's mtime, so a job row that is missing by mistake — a wrong DSN or a
// row not yet committed — still leaves a day's grace). A directory name the
// id column cannot hold (e.g. not a UUID) is such a missing job. Any other
// error (connection, refused query) is a *format.GroupError with Unreachable set.
//
// One connection is kept and re-opened after a failure. Safe for
// concurrent use.
type Status struct {
	cfg  Config
	mu   sync.Mutex
	conn *pgx.Conn
}

// New validates cfg; it connects lazily, on the first Ping or Group.
func New(cfg Config) (*Status, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Status{cfg: cfg}, nil
}

// Ping connects if needed and checks the connection.
func (p *Status) Ping(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, p.cfg.Timeout)
	defer cancel()
	c, err := p.connect(ctx)
	if err == nil {
		err = c.Ping(ctx)
	}
	if err != nil {
		p.drop()
		return &format.GroupError{Source: "postgres", Unreachable: true, Err: err}
	}
	return nil
}

// Group implements format.GroupStatus: the state of the job whose
// directory is jobDir.
func (p *Status) Group(ctx context.Context, jobDir string) (format.GroupState, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, p.cfg.Timeout)
	defer cancel()
	c, err := p.connect(ctx)
	if err != nil {
		return format.GroupState{}, &format.GroupError{Source: "postgres", Group: jobDir, Unreachable: true, Err: err}
	}
	var status *string
	var finished *time.Time
	err = c.QueryRow(ctx, p.cfg.Query, pgx.QueryExecModeSimpleProtocol, filepath.Base(jobDir)).Scan(&status, &finished)
	var pgErr *pgconn.PgError
	switch {
	case errors.Is(err, pgx.ErrNoRows), errors.As(err, &pgErr) && pgErr.Code == "22P02": // invalid_text_representation
		return format.GroupState{Terminal: true, Status: "missing"}, nil
	case err != nil:
		if c.IsClosed() {
			p.drop()
		}
		return format.GroupState{}, &format.GroupError{Source: "postgres", Group: jobDir, Unreachable: true, Err: err}
	}
	st := format.GroupState{Status: "NULL"}
	if status != nil {
		st.Status = *status
	}
	for _, t := range p.cfg.TerminalStatuses {
		if strings.EqualFold(strings.TrimSpace(st.Status), t) {
			st.Terminal = true
		}
	}
	if st.Terminal && finished != nil {
		st.FinishedAt = *finished
	}
	return st, nil
}

// Close closes the connection.
func (p *Status) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.conn == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), p.cfg.Timeout)
	defer cancel()
	err := p.conn.Close(ctx)
	p.conn = nil
	return err
}

func (p *Status) connect(ctx context.Context) (*pgx.Conn, error) {
	if p.conn != nil && !p.conn.IsClosed() {
		return p.conn, nil
	}
	c, err := pgx.Connect(ctx, p.cfg.DSN)
	if err != nil {
		return nil, err
	}
	p.conn = c
	return c, nil
}

func (p *Status) drop() {
	if p.conn != nil {
		_ = p.conn.Close(context.Background())
		p.conn = nil
	}
}

// ConfigError is an invalid configuration value. It is permanent.
type ConfigError struct {
	Field  string // the Config field (or flag) at fault
	Value  string // the value given
	Reason string
}

func (e *ConfigError) Error() string {
	return fmt.Sprintf("job database: %s %q: %s", e.Field, e.Value, e.Reason)
}

// Retryable is false: a configuration does not fix itself.
func (e *ConfigError) Retryable() bool { return false }
