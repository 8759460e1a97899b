package orbitmesh

import (
	"encoding/json"
	"time"

	"github.com/journalship/journalship/internal/sample"
)

// docJSON is the session document as the session store's Save writes it
// (the part the generator fills).
type docJSON struct {
	ID           string           `json:"id"`
	ProviderType string           `json:"provider_type"`
	Title        string           `json:"title,omitempty"`
	State        string           `json:"state"`
	WorkingDir   string           `json:"working_dir"`
	CreatedAt    string           `json:"created_at"`
	UpdatedAt    string           `json:"updated_at"`
	Transitions  []transitionJSON `json:"transitions"`
}

type transitionJSON struct {
	From      string `json:"from"`
	To        string `json:"to"`
	Reason    string `json:"reason"`
	Timestamp string `json:"timestamp"`
}

// attemptJSON is a run attempt as SaveRunAttempt writes it.
type attemptJSON struct {
	AttemptID          string `json:"attempt_id"`
	SessionID          string `json:"session_id"`
	ProviderType       string `json:"provider_type"`
	StartedAt          string `json:"started_at"`
	EndedAt            string `json:"ended_at,omitempty"`
	TerminalReason     string `json:"terminal_reason,omitempty"`
	InterruptionReason string `json:"interruption_reason,omitempty"`
	WaitKind           string `json:"wait_kind,omitempty"`
	ResumeTokenID      string `json:"resume_token_id,omitempty"`
	HeartbeatAt        string `json:"heartbeat_at,omitempty"`
	BootID             string `json:"boot_id"`
}

// tokenJSON is a resume token as SaveResumeToken writes it.
type tokenJSON struct {
	TokenID          string `json:"token_id"`
	SessionID        string `json:"session_id"`
	AttemptID        string `json:"attempt_id"`
	CreatedAt        string `json:"created_at"`
	ExpiresAt        string `json:"expires_at"`
	ConsumedAt       string `json:"consumed_at,omitempty"`
	RevokedAt        string `json:"revoked_at,omitempty"`
	RevocationReason string `json:"revocation_reason,omitempty"`
}

// nano renders a time as Go marshals a time.Time; "" for the zero time.
func nano(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// sideFiles renders the session document, the attempts and the tokens,
// indented as the runtime's store writes them.
func (s *rsession) sideFiles() ([]sample.SideFile, error) {
	var out []sample.SideFile
	add := func(rel string, v any) error {
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return err
		}
		out = append(out, sample.SideFile{Rel: "sessions/" + rel, Data: b})
		return nil
	}
	if err := add(s.id+".json", s.document()); err != nil {
		return nil, err
	}
	if s.docTorn { // read while rewritten in place: its first part only
		d := out[0].Data
		out[0].Data = d[:len(d)*s.x.Between(35, 75)/100]
	}
	for _, a := range s.attempts {
		if err := add(AttemptsDirName+"/"+s.id+"/"+a.id+".json", attemptJSON{AttemptID: a.id, SessionID: s.id, ProviderType: s.provider,
			StartedAt: nano(a.started), EndedAt: nano(a.ended), TerminalReason: a.terminal, InterruptionReason: a.interruption,
			WaitKind: a.waitKind, ResumeTokenID: a.tokenID, HeartbeatAt: nano(a.heartbeat), BootID: a.boot}); err != nil {
			return nil, err
		}
	}
	for _, t := range s.tokens {
		if err := add(ResumeTokensDirName+"/"+t.id+".json", tokenJSON{TokenID: t.id, SessionID: s.id, AttemptID: t.attemptID,
			CreatedAt: nano(t.created), ExpiresAt: nano(t.expires), ConsumedAt: nano(t.consumed), RevokedAt: nano(t.revoked),
			RevocationReason: t.revocation}); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// document is the session document as last saved.
func (s *rsession) document() docJSON {
	d := docJSON{ID: s.id, ProviderType: s.provider, Title: s.th.task.title, State: s.state, WorkingDir: s.th.dir(),
		CreatedAt: nano(s.created), UpdatedAt: nano(s.created), Transitions: []transitionJSON{}}
	for _, t := range s.trans {
		d.Transitions = append(d.Transitions, transitionJSON{From: t.from, To: t.to, Reason: t.reason, Timestamp: nano(t.at)})
		d.UpdatedAt = nano(t.at)
	}
	return d
}
