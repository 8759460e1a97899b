package orbitmesh

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/journalship/journalship/internal/sample"
)

// The snapshot's JSON, keys in the order of the OrbitMesh plan's example.
type snapDoc struct {
	ID         string       `json:"id"`
	Title      string       `json:"title"`
	WorkingDir string       `json:"working_dir"`
	Provider   snapProvider `json:"provider"`
	CreatedAt  string       `json:"created_at"`
	UpdatedAt  string       `json:"updated_at"`
	LastSeq    int64        `json:"last_seq"`
	Run        *snapRun     `json:"run"`
	Recovery   snapRecovery `json:"recovery"`
}

type snapProvider struct {
	Type  string `json:"type"`
	Model string `json:"model"`
}

type snapRun struct {
	RunID     string    `json:"run_id"`
	BootID    string    `json:"boot_id"`
	StartedAt string    `json:"started_at"`
	EndedAt   *string   `json:"ended_at"`
	Wait      *snapWait `json:"wait"`
}

type snapWait struct {
	Kind          string `json:"kind"`
	SinceSeq      int64  `json:"since_seq"`
	ResumeTokenID string `json:"resume_token_id,omitempty"`
	DeadlineAt    string `json:"deadline_at"`
}

type snapRecovery struct {
	LastBootSeen string            `json:"last_boot_seen"`
	Interruption *snapInterruption `json:"interruption"`
}

type snapInterruption struct {
	RunID      string `json:"run_id"`
	Reason     string `json:"reason"`
	DetectedAt string `json:"detected_at"`
}

// The token index's JSON: hashed secrets only, as the plan asks.
type indexDoc struct {
	Version int          `json:"version"`
	Tokens  []indexEntry `json:"tokens"`
}

type indexEntry struct {
	TokenID      string `json:"token_id"`
	RunID        string `json:"run_id"`
	SessionID    string `json:"session_id"`
	WaitKind     string `json:"wait_kind"`
	State        string `json:"state"`
	SecretSHA256 string `json:"secret_sha256"`
	MintedAt     string `json:"minted_at"`
	ExpiresAt    string `json:"expires_at"`
}

// facts is what the side files the generator wrote tell a reader, known
// by construction: the zero value is "nothing readable".
type facts struct {
	known        bool // the snapshot is whole
	lastSeq      int64
	model        string
	runID        string
	bootID       string
	ended        bool
	lastBootSeen string
	waitToken    string
	deadline     time.Time
	hasDeadline  bool
	index        map[string]tokenFact // nil: no token index
}

type tokenFact struct {
	state   string
	expires time.Time
}

// sideFiles renders the session's snapshot and token index as its
// snapMode says, with the facts they give.
func (s *session) sideFiles() ([]sample.SideFile, facts, error) {
	if s.snap == snapNone {
		return nil, facts{}, nil
	}
	doc := s.snapshot()
	data, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, facts{}, err
	}
	base := "sessions/" + s.id
	if s.snap == snapTorn {
		// Read while rewritten in place: its first part only.
		cut := len(data) * s.x.Between(35, 75) / 100
		return []sample.SideFile{{Rel: base + ".json", Data: data[:cut]}}, facts{}, nil
	}
	side := []sample.SideFile{{Rel: base + ".json", Data: append(data, '\n')}}
	f := s.snapFacts(doc)
	if s.snap == snapFull {
		idx, err := json.MarshalIndent(s.index(), "", "  ")
		if err != nil {
			return nil, facts{}, err
		}
		side = append(side, sample.SideFile{Rel: base + ".tokens.json", Data: append(idx, '\n')})
		f.index = map[string]tokenFact{}
		for _, t := range s.tokens {
			f.index[t.id] = tokenFact{state: t.state, expires: t.expires}
		}
	}
	return side, f, nil
}

// snapshot is the runtime's last snapshot of the session.
func (s *session) snapshot() snapDoc {
	updated := s.updated
	if updated.IsZero() {
		updated = s.recs[len(s.recs)-1].at
	}
	doc := snapDoc{ID: s.id, Title: s.th.task.title, WorkingDir: s.th.dir(),
		Provider:  snapProvider{Type: providerType(s.model), Model: s.model},
		CreatedAt: stamp(s.created), UpdatedAt: stamp(updated), LastSeq: s.lastSeq(),
		Recovery: snapRecovery{LastBootSeen: s.lastBootSeen}}
	if r := s.run; r != nil {
		doc.Run = &snapRun{RunID: r.id, BootID: r.boot, StartedAt: stamp(r.started)}
		if !r.ended.IsZero() {
			e := stamp(r.ended)
			doc.Run.EndedAt = &e
		}
		if w := r.wait; w != nil {
			doc.Run.Wait = &snapWait{Kind: w.kind, SinceSeq: w.sinceSeq, DeadlineAt: stamp(w.deadline)}
			if w.token != nil {
				doc.Run.Wait.ResumeTokenID = w.token.id
			}
		}
	}
	if i := s.interruption; i != nil {
		doc.Recovery.Interruption = &snapInterruption{RunID: i.runID, Reason: i.reason, DetectedAt: stamp(i.at)}
	}
	return doc
}

// snapFacts is what a whole snapshot tells.
func (s *session) snapFacts(doc snapDoc) facts {
	f := facts{known: true, lastSeq: doc.LastSeq, model: s.model, lastBootSeen: doc.Recovery.LastBootSeen}
	if r := doc.Run; r != nil {
		f.runID, f.bootID, f.ended = r.RunID, r.BootID, r.EndedAt != nil
		if r.Wait != nil {
			f.waitToken, f.deadline, f.hasDeadline = r.Wait.ResumeTokenID, s.run.wait.deadline, true
		}
	}
	return f
}

// index is the session's token index.
func (s *session) index() indexDoc {
	doc := indexDoc{Version: 1, Tokens: []indexEntry{}}
	for _, t := range s.tokens {
		doc.Tokens = append(doc.Tokens, indexEntry{TokenID: t.id, RunID: t.runID, SessionID: s.id, WaitKind: t.waitKind,
			State: t.state, SecretSHA256: sample.SHA256Hex(t.secret), MintedAt: stamp(t.minted), ExpiresAt: stamp(t.expires)})
	}
	return doc
}

// providerType names the provider adapter serving model.
func providerType(model string) string {
	switch {
	case strings.HasPrefix(model, "claude"):
		return "anthropic"
	case strings.HasPrefix(model, "gemini"):
		return "google"
	}
	return "native"
}

// stamp renders a time as the runtime writes it.
func stamp(t time.Time) string { return t.UTC().Format(tsLayout) }
