package codelia

import (
	"fmt"
	"time"

	"github.com/journalship/journalship/internal/sample"
)

// FormatName is the format label of the files Generate writes.
const FormatName = "codelia"

// gen holds what all runs of a corpus share.
type gen struct {
	cfg      Config
	version  string     // Codelia's version on every header
	sessions []*session // in creation order
	crashed  *session   // the session of the crashed run, continued by run 1
	last     *session   // the last clean run's session, which the next may continue
}

// Generate builds the corpus described by cfg. It returns a
// *sample.ConfigError when cfg is invalid.
func Generate(cfg Config) (*sample.Corpus, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	start := cfg.Start.UTC().Truncate(time.Millisecond)
	x := newRNG(cfg.Seed, 0)
	g := &gen{cfg: cfg, version: fmt.Sprintf("0.%d.%d", x.Between(1, 3), x.Between(0, 19))}
	spacing := min(5*time.Minute, 45*time.Minute/time.Duration(cfg.Runs))
	c := &sample.Corpus{}
	for i := range cfg.Runs {
		x := newRNG(cfg.Seed, uint64(i)+1)
		at := start.Add(time.Duration(i) * spacing)
		if i > 0 {
			at = at.Add(ms(x.Intn(int(spacing/time.Millisecond)/2 + 1)))
		}
		kind := scenarioOf(i, cfg.Faults)
		r := g.newRun(x, i, kind, at)
		build(r, kind)
		f, err := render(x, r)
		if err != nil {
			return nil, err
		}
		c.Files = append(c.Files, f)
		r.closeSession()
	}
	side, err := g.snapshots()
	if err != nil {
		return nil, err
	}
	c.Side = side
	return c, nil
}

// newRun prepares run i of kind, starting at at or, when it continues a
// session, after the session's previous run.
func (g *gen) newRun(x *rng, i, kind int, at time.Time) *run {
	sess := g.sessionFor(x, kind)
	var h *host
	if sess != nil {
		h = sess.host
		if sess.runs > 0 {
			at = maxTime(at, sess.updated.Add(ms(x.Between(20000, 90000))))
		}
	} else {
		h = newHost(x, "cli")
	}
	model := g.cfg.Models[i%len(g.cfg.Models)]
	r := &run{x: x, id: x.UUIDv4(), sess: sess, host: h, model: model, prov: providerOf(model),
		version: g.version, clock: at}
	r.fileID, r.dir = r.id, at.UTC()
	if sess != nil {
		r.reqSeq = sess.invokeSeq
	}
	return r
}

// sessionFor returns the session of a run of kind: the fault runs' are
// fixed (see the package doc); a clean run has none (prompt mode, 15 %),
// continues the previous clean run's session (40 %, at most three runs a
// session) or opens one.
func (g *gen) sessionFor(x *rng, kind int) *session {
	switch kind {
	case scInterleaved:
		return nil
	case scRetries:
		if g.crashed != nil {
			return g.crashed
		}
	case scClean:
		switch {
		case x.Chance(0.15):
			return nil
		case g.last != nil && g.last.runs < 3 && x.Chance(0.4):
			return g.last
		}
	}
	s := &session{id: x.UUIDv4(), host: newHost(x, "tui")}
	g.sessions = append(g.sessions, s)
	switch kind {
	case scCrashed:
		g.crashed = s
	case scClean:
		g.last = s
	}
	return s
}

// newHost draws the machine, user and repository of a session (or of a
// run without one).
func newHost(x *rng, client string) *host {
	th := &themes[x.Intn(len(themes))]
	user := pick(x, []string{"mika", "jonas", "priya", "dev", "lucia", "kenji"})
	h := &host{th: th, client: client, os: "linux", arch: "x64", baseToken: x.Between64(2800, 6400)}
	if x.Chance(0.4) {
		h.os, h.arch, h.cwd = "darwin", "arm64", "/Users/"+user+"/code/"+th.repo
	} else {
		h.cwd = "/home/" + user + "/src/" + th.repo
	}
	h.system = "You are Codelia, a coding agent working in " + h.cwd +
		". Use the tools to inspect and change files and to run commands. Follow AGENTS.md. Keep answers short."
	return h
}

// closeSession records the run in its session: the numbering goes on from
// the run's last request, the history keeps its input and answer.
func (r *run) closeSession() {
	s := r.sess
	if s == nil {
		return
	}
	s.runs++
	s.invokeSeq, s.lastRun = r.reqSeq, r.id
	s.history = append(s.history, obj{{"role", "user"}, {"content", r.input}})
	if r.final != "" {
		s.history = append(s.history, obj{{"role", "assistant"}, {"content", r.final}})
	}
	s.updated = r.clock.Add(ms(r.x.Between(40, 400)))
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
