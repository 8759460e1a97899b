package orbitmesh

import (
	"time"

	"github.com/journalship/journalship/internal/sample"
)

// Generate builds the corpus described by cfg: one file per session, in
// session order, and the side files beside them. It returns a
// *sample.ConfigError when cfg is invalid.
func Generate(cfg Config) (*sample.Corpus, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	start := cfg.Start.UTC().Truncate(time.Millisecond)
	spacing := min(3*time.Minute, 20*time.Minute/time.Duration(cfg.Sessions))
	c := &sample.Corpus{}
	for i := range cfg.Sessions {
		x := newRNG(cfg.Seed, uint64(i)+1)
		at := start.Add(time.Duration(i) * spacing)
		if i > 0 {
			at = at.Add(x.Millis(0, int(spacing/time.Millisecond)/2))
		}
		s := newSession(x, "sess_"+x.Chars(12, base32Alphabet), cfg.Models[i%len(cfg.Models)], at)
		s.scenario(i, cfg.Faults)
		r, err := s.render()
		if err != nil {
			return nil, err
		}
		c.Files = append(c.Files, r.file)
		c.Side = append(c.Side, r.side...)
	}
	return c, nil
}
