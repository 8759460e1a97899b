package orbitmesh

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"strings"
	"time"
)

// MaxSnapshotBytes bounds each companion file ReadSnapshot reads; a larger
// file is read as unknown.
const MaxSnapshotBytes = 1 << 20

// MaxTokens bounds the tokens kept from a token index; past it the index
// is marked truncated and no token counts as missing.
const MaxTokens = 1024

// TokenState is a resume token's state as the token index states it.
type TokenState uint8

// The token states. TokenUnknown is an entry without a state, or with one
// journalship does not know.
const (
	TokenUnknown TokenState = iota
	TokenActive
	TokenConsumed
	TokenRevoked
	TokenExpired
)

var tokenStateNames = [...]string{"unknown", "active", "consumed", "revoked", "expired"}

// String returns the state's name.
func (t TokenState) String() string {
	if int(t) < len(tokenStateNames) {
		return tokenStateNames[t]
	}
	return "unknown"
}

// Token is one entry of the token index.
type Token struct {
	State     TokenState
	ExpiresAt time.Time
	HasExpiry bool
}

// Snapshot is what a session's snapshot and token index say, each field
// known only when its Has flag is set: a file absent, torn, too large or
// holding a field of the wrong type leaves fields unknown, never an error
// (docs/formats/orbitmesh.md, Snapshot and token index).
type Snapshot struct {
	// Read: the snapshot <id>.json was a JSON object.
	Read bool

	Model    string // provider.model
	HasModel bool
	RunID    string // run.run_id
	HasRunID bool
	BootID   string // run.boot_id
	HasBoot  bool
	// RunEnded: run.ended_at is set (not null).
	RunEnded bool
	// LastBootSeen is recovery.last_boot_seen.
	LastBootSeen    string
	HasLastBootSeen bool
	WaitToken       string // run.wait.resume_token_id
	HasWaitToken    bool
	WaitDeadline    time.Time // run.wait.deadline_at
	HasWaitDeadline bool
	LastSeq         int64 // last_seq
	HasLastSeq      bool

	// Tokens is the token index <id>.tokens.json by token id, when
	// HasTokens; TokensTruncated when it held more than MaxTokens.
	Tokens          map[string]Token
	HasTokens       bool
	TokensTruncated bool
}

// ReadSnapshot reads the snapshot and token index of the session log at
// journalPath (see Companions). It never fails: what cannot be read is
// unknown.
func ReadSnapshot(journalPath string) Snapshot {
	c := Companions(journalPath)
	if c == nil {
		return Snapshot{}
	}
	return ParseSnapshot(readBounded(c[0]), readBounded(c[1]))
}

// readBounded returns a regular file's content, or nil when it is absent,
// not a regular file, unreadable or larger than MaxSnapshotBytes.
func readBounded(path string) []byte {
	if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxSnapshotBytes+1))
	if err != nil || len(b) > MaxSnapshotBytes {
		return nil
	}
	return b
}

// ParseSnapshot reads a snapshot's and a token index's content (nil when
// absent). Any bytes are accepted; what is not as expected is unknown.
func ParseSnapshot(meta, tokens []byte) Snapshot {
	var s Snapshot
	if m, ok := decode(meta).(map[string]any); ok {
		s.Read = true
		s.readMeta(m)
	}
	if len(tokens) > 0 {
		s.readTokens(decode(tokens))
	}
	return s
}

// decode returns b as a JSON value (numbers as json.Number), or nil.
func decode(b []byte) any {
	if len(b) == 0 || len(b) > MaxSnapshotBytes {
		return nil
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return nil
	}
	if _, err := d.Token(); err != io.EOF { // trailing bytes: torn or garbled
		return nil
	}
	return v
}

func (s *Snapshot) readMeta(m map[string]any) {
	s.Model, s.HasModel = str(obj(m, "provider"), "model")
	run := obj(m, "run")
	s.RunID, s.HasRunID = str(run, "run_id")
	s.BootID, s.HasBoot = str(run, "boot_id")
	_, s.RunEnded = str(run, "ended_at")
	wait := obj(run, "wait")
	s.WaitToken, s.HasWaitToken = str(wait, "resume_token_id")
	s.WaitDeadline, s.HasWaitDeadline = timeOf(wait, "deadline_at")
	s.LastBootSeen, s.HasLastBootSeen = str(obj(m, "recovery"), "last_boot_seen")
	if n, ok := m["last_seq"].(json.Number); ok {
		if v, err := n.Int64(); err == nil && v >= 0 {
			s.LastSeq, s.HasLastSeq = v, true
		}
	}
}

// readTokens reads the token index: a list of entries with an id, an
// object of entries by token id, or either under a "tokens" member.
func (s *Snapshot) readTokens(v any) {
	if m, ok := v.(map[string]any); ok {
		switch inner := m["tokens"].(type) {
		case []any, map[string]any:
			v = inner
		}
	}
	switch v := v.(type) {
	case []any:
		s.Tokens, s.HasTokens = map[string]Token{}, true
		for _, e := range v {
			m, ok := e.(map[string]any)
			if !ok {
				continue
			}
			id, ok := str(m, "id")
			if !ok {
				if id, ok = str(m, "token_id"); !ok {
					id, ok = str(m, "resume_token_id")
				}
			}
			if ok {
				s.addToken(id, m)
			}
		}
	case map[string]any:
		s.Tokens, s.HasTokens = map[string]Token{}, true
		for id, e := range v {
			if m, ok := e.(map[string]any); ok {
				s.addToken(id, m)
			}
		}
	}
}

func (s *Snapshot) addToken(id string, m map[string]any) {
	if _, dup := s.Tokens[id]; !dup && len(s.Tokens) >= MaxTokens {
		s.TokensTruncated = true
		return
	}
	st, ok := str(m, "state")
	if !ok {
		st, _ = str(m, "status")
	}
	t := Token{State: tokenStateOf(st)}
	t.ExpiresAt, t.HasExpiry = timeOf(m, "expires_at")
	s.Tokens[id] = t
}

func tokenStateOf(s string) TokenState {
	switch strings.ToLower(s) {
	case "active", "minted", "valid":
		return TokenActive
	case "consumed", "used":
		return TokenConsumed
	case "revoked":
		return TokenRevoked
	case "expired":
		return TokenExpired
	}
	return TokenUnknown
}

func obj(m map[string]any, key string) map[string]any {
	v, _ := m[key].(map[string]any)
	return v
}

// str returns a non-empty string member (an empty one is unknown).
func str(m map[string]any, key string) (string, bool) {
	v, ok := m[key].(string)
	return v, ok && v != ""
}

func timeOf(m map[string]any, key string) (time.Time, bool) {
	s, ok := str(m, key)
	if !ok {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	return t, err == nil
}
