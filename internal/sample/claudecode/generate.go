package claudecode

import (
	"time"

	"github.com/journalship/journalship/internal/sample"
)

// FormatName is the format label of the files Generate writes.
const FormatName = "claude-code"

// Generate builds the corpus described by cfg: per session its main
// transcript, then its subagent transcripts (and legacy agent files) in
// the order they were started, and the subagents' sidecars. It returns a
// *sample.ConfigError when cfg is invalid.
func Generate(cfg Config) (*sample.Corpus, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	start := cfg.Start.UTC().Truncate(time.Millisecond)
	spacing := min(4*time.Minute, 40*time.Minute/time.Duration(cfg.Sessions))
	c := &sample.Corpus{}
	var orig *session
	var origN int
	var origCtx tokenCtx
	var origEnd time.Time
	for i := range cfg.Sessions {
		x := newRNG(cfg.Seed, uint64(i)+1)
		at := start.Add(time.Duration(i) * spacing)
		if i > 0 {
			at = at.Add(x.Millis(0, int(spacing/time.Millisecond)/2))
		}
		model := cfg.Models[i%len(cfg.Models)]
		fault := cfg.Faults && i < MinFaultSessions
		var s *session
		switch {
		case fault && i == 0:
			s = newSession(x, i, eraLegacy, model, cfg.Models, at)
			s.legacy()
		case fault && i == 1:
			s = newSession(x, i, eraNew, model, cfg.Models, at)
			s.subagents()
		case fault && i == 2:
			s = newSession(x, i, eraOld, model, cfg.Models, at)
			for s.id[0] < '8' { // the fork's id sorts before it (see the package doc)
				s.id = x.UUIDv4()
			}
			origN, origCtx, origEnd = s.original()
			orig = s
			if cfg.Sessions > 7 {
				s.billResumed(origN) // session 7 writes them again
			}
		case fault && i == 3:
			s = newSession(x, i, eraNew, orig.main.model, cfg.Models, origEnd.Add(x.Secs(90, 300)))
			s.th, s.tasks, s.main.version = orig.th, orig.tasks, orig.main.version
			for s.id >= orig.id {
				s.id = x.UUIDv4()
			}
			s.fork(orig, origN, origCtx)
		case fault && i == 7:
			s = newSession(x, i, eraNew, orig.main.model, cfg.Models, origEnd.Add(x.Secs(400, 900)))
			s.th, s.tasks, s.main.version = orig.th, orig.tasks, pick(x, versionsNew)
			for s.id <= orig.id {
				s.id = x.UUIDv4() // the original's path sorts first
			}
			s.continued(orig, origN, origCtx)
		case fault && i == 4:
			s = newSession(x, i, eraOld, model, cfg.Models, at)
			s.damaged()
		case fault && i == 5:
			s = newSession(x, i, eraOld, model, cfg.Models, at)
			s.capturedLost()
		case fault && i == 6:
			s = newSession(x, i, eraOld, model, cfg.Models, at)
			s.capturedCut()
		default:
			s = newSession(x, i, x.Weighted(10, 40, 50), model, cfg.Models, at)
			if headless(cfg.Seed, i) {
				s.headless()
			} else {
				s.clean()
			}
		}
		if err := s.emit(c); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// headless tells whether clean session i is a captured headless run
// (about one in five), drawn from a stream of its own so that the other
// sessions stay as they are.
func headless(seed int64, i int) bool {
	return newRNG(seed, 1<<32|uint64(i)).Chance(0.2)
}

// emit renders the session's files into c.
func (s *session) emit(c *sample.Corpus) error {
	f, facts, err := render(s, s.main, nil)
	if err != nil {
		return err
	}
	c.Files = append(c.Files, f)
	for _, t := range s.subs {
		sf, _, err := render(s, t, facts)
		if err != nil {
			return err
		}
		c.Files = append(c.Files, sf)
	}
	c.Side = append(c.Side, s.side...)
	return nil
}
