package codex

import (
	"time"

	"github.com/journalship/journalship/internal/sample"
)

// FormatName is the format label of the files Generate writes.
const FormatName = "codex"

// Generate builds the corpus described by cfg: one rollout per session,
// in session order (a fork after the session it copies). It returns a
// *sample.ConfigError when cfg is invalid.
func Generate(cfg Config) (*sample.Corpus, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	start := cfg.Start.UTC().Truncate(time.Millisecond)
	spacing := min(4*time.Minute, 40*time.Minute/time.Duration(cfg.Sessions))
	c := &sample.Corpus{}
	var parent *session
	var parentN int
	for i := range cfg.Sessions {
		x := newRNG(cfg.Seed, uint64(i)+1)
		at := start.Add(time.Duration(i) * spacing)
		model := cfg.Models[i%len(cfg.Models)]
		var s *session
		switch fault := cfg.Faults && i < MinFaultSessions; {
		case fault && i == 0: // CLI 0.40: an aborted turn, a resume that restarts the totals
			s = newSession(x, era040, model, cfg.Models, at)
			s.meta("codex_vscode", "vscode")
			s.fullTurn(2, false)
			s.abort()
			s.resume()
		case fault && i == 1: // 0.104: rate-limit repeats, a compaction, a resume; forked by session 2
			s = newSession(x, era0104, model, cfg.Models, at)
			s.meta("Codex Desktop", "vscode")
			s.fullTurn(2, false)
			s.turn(false)
			s.toolRound(true)
			s.compact()
			s.answer(false)
			parent, parentN = s, len(s.recs)
			s.snapTotal, s.snapLast, s.snapContext, s.snapModel = s.total, s.last, s.context, s.model
			s.resume()
		case fault && i == 2: // a fork of session 1 after its first part
			s = newSession(x, era0104, parent.model, cfg.Models, parent.recs[parentN-1].at(parent).Add(x.Secs(30, 120)))
			s.fork(parent, parentN)
			s.fullTurn(1, false)
		case fault && i == 3: // 0.135 (codex exec): damaged lines
			s = newSession(x, era0135, model, cfg.Models, at)
			s.meta("codex_exec", "exec")
			s.damage()
		case fault && i == 4: // 0.104: the process died while a call ran
			s = newSession(x, era0104, model, cfg.Models, at)
			s.meta("codex_cli_rs", "cli")
			s.fullTurn(1, false)
			s.crash()
		default:
			s = newSession(x, eras[x.Intn(len(eras))], model, cfg.Models, at)
			s.clean()
		}
		f, err := render(s)
		if err != nil {
			return nil, err
		}
		c.Files = append(c.Files, f)
	}
	return c, nil
}

// clean is a session without faults: one to three turns, the model
// changed (/model) before a later turn now and then.
func (s *session) clean() {
	orig := map[era]string{era040: "codex_vscode", era0104: "codex_cli_rs", era0135: "codex_exec"}[s.era]
	s.meta(orig, map[era]string{era040: "vscode", era0104: "cli", era0135: "exec"}[s.era])
	for k := range s.x.Between(1, 3) {
		if k > 0 && s.x.Chance(0.3) {
			s.model = s.models[s.x.Intn(len(s.models))]
		}
		s.fullTurn(s.x.Between(0, 3), false)
	}
}

// at is the time written on r (the session's clock when it was added).
func (r *rec) at(s *session) time.Time {
	if ts, ok := r.b.Get("timestamp").(string); ok {
		if t, err := time.Parse(time.RFC3339Nano, ts); err == nil {
			return t
		}
	}
	return s.clock
}

// fork writes a fork of p's first n lines, as codex fork does: its own
// session_meta (forked_from_id), then p's lines verbatim but for their
// timestamps (the time of the copy), p's session_meta among them; its
// totals continue p's. The copied responses are p's bills: p's file,
// whose path sorts first, counts them.
func (s *session) fork(p *session, n int) {
	s.meta("Codex Desktop", "vscode")
	pl := s.recs[0].b.Get("payload").(obj)
	s.recs[0].b[2] = kv{"payload", append(pl[:1:1], append(obj{{"forked_from_id", p.id}}, pl[1:]...)...)}
	for i, r := range p.recs[:n] {
		c := *r
		c.b = append(obj(nil), r.b...)
		c.b[0] = kv{"timestamp", stamp(s.tick(0, 2))}
		c.copied = true
		c.notes = nil
		if i == 0 {
			c.notes = []string{AnnSessionIDMismatch}
		}
		if r.notes != nil && i != 0 {
			c.notes = r.notes
		}
		s.recs = append(s.recs, &c)
	}
	last := p.recs[n-1]
	s.state = last.state
	s.origin = p.id
	s.total, s.last, s.hasTotal = p.snapTotal, p.snapLast, true
	s.base, s.hasBase = p.snapTotal, true
	s.context = p.snapContext
	s.model = p.snapModel
}
