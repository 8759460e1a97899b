package pricing

import (
	"bytes"
	"context"
	_ "embed"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

//go:embed default_prices.yaml
var defaultTable []byte

// Default returns the built-in table.
func Default() *Table {
	t, err := Parse(defaultTable)
	if err != nil {
		panic("pricing: built-in table: " + err.Error()) // pinned by a test
	}
	return t
}

// Logger receives reload outcomes.
type Logger interface {
	Infof(format string, args ...any)
	Errorf(format string, args ...any)
}

// Source holds the table in force and reloads it when its file changes.
// Lookups never block on a reload.
type Source struct {
	cfg     Config
	log     Logger
	table   atomic.Pointer[Table]
	mu      sync.Mutex // guards last and stamp
	last    []byte
	stamp   fileStamp
	stop    context.CancelFunc
	done    sync.WaitGroup
	hooks   []func(*Table) // guarded by mu
	lastErr string         // the last reload error logged, guarded by mu
	Reloads atomic.Int64   // successful reloads after the first load
	Failed  atomic.Int64   // reloads that failed (the previous table stays)
}

// OnLoad calls fn with the table in force now and again after every
// successful reload (from the watcher's goroutine).
func (s *Source) OnLoad(fn func(*Table)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hooks = append(s.hooks, fn)
	fn(s.Table())
}

// Open loads the table (an error when the file is missing or invalid: a
// price table that is asked for must work at start) and, for a file, starts
// watching it until Close.
func Open(cfg Config, log Logger) (*Source, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	s := &Source{cfg: cfg, log: log}
	if cfg.Path == "" {
		s.table.Store(Default())
		return s, nil
	}
	if _, err := s.load(); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	s.stop = cancel
	s.done.Add(1)
	go s.watch(ctx)
	return s, nil
}

// Table returns the table in force.
func (s *Source) Table() *Table { return s.table.Load() }

// Lookup prices model for tenant with the table in force.
func (s *Source) Lookup(tenant, model string) (Price, bool) {
	return s.table.Load().Lookup(tenant, model)
}

// Close stops watching the file.
func (s *Source) Close() {
	if s.stop != nil {
		s.stop()
		s.done.Wait()
	}
}

func (s *Source) watch(ctx context.Context) {
	defer s.done.Done()
	tick := time.NewTicker(s.cfg.ReloadInterval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			s.Check()
		}
	}
}

// Check reloads the file if it changed since the last look; a failure is
// logged and counted and leaves the previous table in force.
func (s *Source) Check() {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, err := stampOf(s.cfg.Path)
	if err == nil && st == s.stamp {
		return
	}
	changed, err := s.load()
	switch {
	case err != nil:
		s.Failed.Add(1)
		// A file that stays broken is logged once, not every interval.
		if s.log != nil && err.Error() != s.lastErr {
			s.log.Errorf("%v; keeping the previous price table", err)
		}
		s.lastErr = err.Error()
		return
	}
	s.lastErr = ""
	switch {
	case changed:
		s.Reloads.Add(1)
		for _, fn := range s.hooks {
			fn(s.Table())
		}
		if s.log != nil {
			s.log.Infof("pricing: reloaded %s (%d models)", s.cfg.Path, len(s.Table().Models()))
		}
	}
}

// load reads and parses the file; changed is false when the bytes are the
// same as last time.
func (s *Source) load() (changed bool, err error) {
	st, err := stampOf(s.cfg.Path)
	if err != nil {
		return false, &TableError{Source: s.cfg.Path, Err: err}
	}
	data, err := os.ReadFile(s.cfg.Path)
	if err != nil {
		return false, &TableError{Source: s.cfg.Path, Err: err}
	}
	s.stamp = st
	if s.table.Load() != nil && bytes.Equal(data, s.last) {
		return false, nil
	}
	t, err := Parse(data)
	if err != nil {
		return false, &TableError{Source: s.cfg.Path, Err: err}
	}
	s.table.Store(t)
	s.last = data
	return true, nil
}

// fileStamp identifies a version of a file without reading it. os.Stat
// follows symlinks, so a ConfigMap's swapped ..data link shows as a change.
type fileStamp struct {
	size  int64
	mtime time.Time
	ino   uint64
}
