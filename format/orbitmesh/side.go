package orbitmesh

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// The runtime's side files (docs/formats/orbitmesh.md, Side files): beside
// <dir>/<id>.messages.jsonl, the session document <dir>/<id>.json
// (rewritten in place), one file per run attempt in
// <dir>/attempts/<id>/<attempt>.json and the resume tokens in
// <dir>/resume_tokens/<token>.json (any session's; each names its own).
const (
	AttemptsDir     = "attempts"
	ResumeTokensDir = "resume_tokens"
)

// MaxSideFiles bounds the attempt files, and apart the resume token files,
// ReadSide reads; past it the rest are not read (Side.Truncated).
const MaxSideFiles = 4096

// Side is what the runtime keeps beside a session's log, each part known
// only when read: a file absent, half-written, too large or not one JSON
// object is left out, never an error.
type Side struct {
	// Doc: the session document was read.
	Doc bool
	// State is the document's state (idle, running, suspended), "" when
	// unknown.
	State string
	// Transitions are the document's state transitions in file order.
	Transitions []Transition
	// Attempts are the run attempts, oldest first (by started_at, then
	// id, as the runtime orders them).
	Attempts []Attempt
	// Tokens are the resume tokens that name the session.
	Tokens []ResumeToken
	// Truncated: more than MaxSideFiles attempts or tokens were listed.
	Truncated bool
}

// Transition is one state change of the session document.
type Transition struct {
	To string
	At time.Time
}

// Attempt is one run attempt's file. Times are zero when absent.
type Attempt struct {
	ID                 string
	Started, Ended     time.Time
	TerminalReason     string
	InterruptionReason string
	WaitKind           string
	ResumeTokenID      string
	BootID             string
	Heartbeat          time.Time
}

// ResumeToken is one resume token's file. Times are zero when absent.
type ResumeToken struct {
	ID, AttemptID                       string
	Created, Expires, Consumed, Revoked time.Time
	RevocationReason                    string
}

// ReadSide reads the side files of the session log at journalPath. It
// never fails: what cannot be read is unknown.
func ReadSide(journalPath string) Side {
	id, ok := sessionID(journalPath)
	if !ok || !plainID(id) {
		return Side{}
	}
	dir := filepath.Dir(journalPath)
	var sd Side
	sd.readDoc(readBounded(filepath.Join(dir, id+SnapshotSuffix)))
	sd.Attempts, sd.Truncated = readAttempts(filepath.Join(dir, AttemptsDir, id))
	sd.Tokens = readTokens(dir, id)
	return sd
}

// docJSON is the part of the session document read.
type docJSON struct {
	State       *string `json:"state"`
	Transitions []struct {
		To        string `json:"to"`
		Timestamp string `json:"timestamp"`
	} `json:"transitions"`
}

func (sd *Side) readDoc(b []byte) {
	var d docJSON
	if !unmarshal(b, &d) {
		return
	}
	sd.Doc = true
	if d.State != nil {
		sd.State = *d.State
	}
	for _, t := range d.Transitions {
		if at, ok := parseTime(t.Timestamp); ok && t.To != "" {
			sd.Transitions = append(sd.Transitions, Transition{To: t.To, At: at})
		}
	}
}

// attemptJSON is an attempt file as the runtime writes it.
type attemptJSON struct {
	AttemptID          string `json:"attempt_id"`
	StartedAt          string `json:"started_at"`
	EndedAt            string `json:"ended_at"`
	TerminalReason     string `json:"terminal_reason"`
	InterruptionReason string `json:"interruption_reason"`
	WaitKind           string `json:"wait_kind"`
	ResumeTokenID      string `json:"resume_token_id"`
	BootID             string `json:"boot_id"`
	HeartbeatAt        string `json:"heartbeat_at"`
}

// readAttempts reads the attempt files in dir, oldest first.
func readAttempts(dir string) (out []Attempt, truncated bool) {
	names, truncated := jsonFiles(dir)
	for _, n := range names {
		var a attemptJSON
		if !unmarshal(readBounded(filepath.Join(dir, n)), &a) {
			continue
		}
		at := Attempt{ID: a.AttemptID, TerminalReason: a.TerminalReason, InterruptionReason: a.InterruptionReason,
			WaitKind: a.WaitKind, ResumeTokenID: a.ResumeTokenID, BootID: a.BootID}
		if at.ID == "" {
			at.ID = strings.TrimSuffix(n, ".json")
		}
		at.Started, _ = parseTime(a.StartedAt)
		at.Ended, _ = parseTime(a.EndedAt)
		at.Heartbeat, _ = parseTime(a.HeartbeatAt)
		out = append(out, at)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Started.Equal(out[j].Started) {
			return out[i].ID < out[j].ID
		}
		return out[i].Started.Before(out[j].Started)
	})
	return out, truncated
}

// tokenJSON is a resume token file as the runtime writes it.
type tokenJSON struct {
	TokenID          string `json:"token_id"`
	SessionID        string `json:"session_id"`
	AttemptID        string `json:"attempt_id"`
	CreatedAt        string `json:"created_at"`
	ExpiresAt        string `json:"expires_at"`
	ConsumedAt       string `json:"consumed_at"`
	RevokedAt        string `json:"revoked_at"`
	RevocationReason string `json:"revocation_reason"`
}

// readTokens reads the resume tokens in <dir>/resume_tokens that name the
// session id.
func readTokens(dir, id string) []ResumeToken {
	tdir := filepath.Join(dir, ResumeTokensDir)
	names, _ := jsonFiles(tdir)
	var out []ResumeToken
	for _, n := range names {
		var t tokenJSON
		if !unmarshal(readBounded(filepath.Join(tdir, n)), &t) || t.SessionID != id {
			continue
		}
		rt := ResumeToken{ID: strings.TrimSuffix(n, ".json"), AttemptID: t.AttemptID, RevocationReason: t.RevocationReason}
		rt.Created, _ = parseTime(t.CreatedAt)
		rt.Expires, _ = parseTime(t.ExpiresAt)
		rt.Consumed, _ = parseTime(t.ConsumedAt)
		rt.Revoked, _ = parseTime(t.RevokedAt)
		out = append(out, rt)
	}
	return out
}

// jsonFiles lists the names of the regular *.json files in dir (at most
// MaxSideFiles, in name order; the runtime's temporary files end in .tmp).
func jsonFiles(dir string) (names []string, truncated bool) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, false
	}
	for _, e := range entries {
		if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		if len(names) == MaxSideFiles {
			return names, true
		}
		names = append(names, e.Name())
	}
	return names, false
}

// unmarshal decodes one complete JSON object (decode: nothing after it)
// into v; false for anything else, a type mismatch included.
func unmarshal(b []byte, v any) bool {
	if _, ok := decode(b).(map[string]any); !ok {
		return false
	}
	return json.Unmarshal(b, v) == nil
}

func parseTime(s string) (time.Time, bool) {
	if s == "" {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil || t.IsZero() {
		return time.Time{}, false
	}
	return t, true
}
