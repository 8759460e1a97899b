package gosession

import (
	"time"

	"github.com/journalship/journalship/internal/sample"
)

// FormatName is the format label of the files Generate writes.
const FormatName = "go-session"

// Generate builds the corpus described by cfg: per session its
// messages.jsonl, then its transcript.jsonl when it has one, and as side
// files its metadata.json, lock files and checkpoints. It returns a
// *sample.ConfigError when cfg is invalid.
func Generate(cfg Config) (*sample.Corpus, error) {
	c, _, err := GenerateWithTruth(cfg)
	return c, err
}

// GenerateWithTruth is Generate with the truth about each session
// directory, in the corpus's order (one Session per directory).
func GenerateWithTruth(cfg Config) (*sample.Corpus, []Session, error) {
	if err := cfg.Validate(); err != nil {
		return nil, nil, err
	}
	start := cfg.Start.UTC().Truncate(time.Millisecond)
	spacing := min(4*time.Minute, 40*time.Minute/time.Duration(cfg.Sessions))
	c := &sample.Corpus{}
	out := make([]Session, 0, cfg.Sessions)
	var source *session // session 0, which the fork copies
	for i := range cfg.Sessions {
		x := newRNG(cfg.Seed, uint64(i)+1)
		at := start.Add(time.Duration(i) * spacing)
		if i > 0 {
			at = at.Add(x.Millis(0, int(spacing/time.Millisecond)/2))
		}
		model := cfg.Models[i%len(cfg.Models)]
		var s *session
		if cfg.Faults && i < MinFaultSessions {
			s = faultSession(x, i, model, at, source)
		} else {
			s = newSession(x, ScenarioClean, model, at)
			s.nested = i%4 != 3 // most as Goat writes, some in the spec's shape
			s.clean(!cfg.Faults)
		}
		if i == 0 {
			source = s
		}
		st, err := s.emit(c)
		if err != nil {
			return nil, nil, err
		}
		out = append(out, st)
	}
	return c, out, nil
}
