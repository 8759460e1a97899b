// Package deadletter keeps the lines Loki refused for good, each with the
// reason, in an append-only JSONL file. A line lands here instead of being
// dropped: together with Loki and the metrics, this file is where every
// journal line ends up.
package deadletter

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"
	"unicode/utf8"
)

// Config says where dead letters go.
type Config struct {
	// Path of the JSONL file. Default /var/lib/journalship/deadletter.jsonl.
	Path string
	// Sync fsyncs after every write (default true): a dead letter must be
	// durable before the plugin tells Fluent Bit the chunk is done.
	Sync bool
}

// DefaultConfig returns the default location.
func DefaultConfig() Config {
	return Config{Path: "/var/lib/journalship/deadletter.jsonl", Sync: true}
}

// Validate checks the path.
func (c Config) Validate() error {
	if c.Path == "" {
		return errors.New("deadletter: path is empty")
	}
	return nil
}

// Entry is one refused line.
type Entry struct {
	Time      time.Time `json:"time"`
	File      string    `json:"file,omitempty"`
	Offset    int64     `json:"offset"`
	HasOffset bool      `json:"-"`
	Line      []byte    `json:"-"`
	Reason    string    `json:"reason"`
	// Stage is where the line was refused: "decode", "pipeline" or "loki".
	Stage string `json:"stage"`
	Tag   string `json:"tag,omitempty"`
}

type record struct {
	Entry
	Time       *time.Time `json:"time,omitempty"`
	TimeRaw    string     `json:"time_raw,omitempty"` // a time JSON cannot hold (outside years 0-9999)
	Offset     *int64     `json:"offset,omitempty"`
	Line       string     `json:"line,omitempty"`
	LineBase64 string     `json:"line_base64,omitempty"`
}

// WriteError is returned when entries could not be made durable. It is
// retryable: the caller must not acknowledge the lines.
type WriteError struct {
	Path string
	Err  error
}

func (e *WriteError) Error() string {
	return fmt.Sprintf("deadletter: write %s: %v", e.Path, e.Err)
}

func (e *WriteError) Unwrap() error { return e.Err }

// Retryable is always true: a full or failing disk may recover.
func (e *WriteError) Retryable() bool { return true }

// Writer appends entries. It is safe for concurrent use.
type Writer struct {
	cfg Config
	mu  sync.Mutex
	f   *os.File
}

// Open opens (creating if needed) the dead-letter file for appending.
func Open(cfg Config) (*Writer, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(cfg.Path), 0o755); err != nil {
		return nil, &WriteError{Path: cfg.Path, Err: err}
	}
	f, err := os.OpenFile(cfg.Path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o640)
	if err != nil {
		return nil, &WriteError{Path: cfg.Path, Err: err}
	}
	return &Writer{cfg: cfg, f: f}, nil
}

// Path returns the file's path.
func (w *Writer) Path() string { return w.cfg.Path }

// Write appends entries in one write and, with Sync, fsyncs.
func (w *Writer) Write(entries []Entry) error {
	if len(entries) == 0 {
		return nil
	}
	var buf []byte
	for _, e := range entries {
		b, err := json.Marshal(toRecord(e))
		if err != nil {
			return &WriteError{Path: w.cfg.Path, Err: err}
		}
		buf = append(append(buf, b...), '\n')
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, err := w.f.Write(buf); err != nil {
		return &WriteError{Path: w.cfg.Path, Err: err}
	}
	if w.cfg.Sync {
		if err := w.f.Sync(); err != nil {
			return &WriteError{Path: w.cfg.Path, Err: err}
		}
	}
	return nil
}

func toRecord(e Entry) record {
	r := record{Entry: e}
	// A broken chunk can carry any time; one JSON cannot encode must not
	// make the dead-letter write (and so the flush) fail forever.
	if y := e.Time.Year(); y >= 0 && y <= 9999 {
		t := e.Time
		r.Time = &t
	} else {
		r.TimeRaw = fmt.Sprintf("unix %d.%09d", e.Time.Unix(), e.Time.Nanosecond())
	}
	if e.HasOffset {
		off := e.Offset
		r.Offset = &off
	}
	if utf8.Valid(e.Line) {
		r.Line = string(e.Line)
	} else {
		r.LineBase64 = base64.StdEncoding.EncodeToString(e.Line)
	}
	return r
}

// Close closes the file.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.f.Close()
}
