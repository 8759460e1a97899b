package orbitmesh

import (
	"strings"
	"time"

	"github.com/journalship/journalship/internal/sample"
)

// Generate builds the corpus described by cfg: one file per session, in
// session order, and the side files beside them. It returns a
// *sample.ConfigError when cfg is invalid.
func Generate(cfg Config) (*sample.Corpus, error) {
	c, _, err := GenerateWithTruth(cfg)
	return c, err
}

// GenerateWithTruth is Generate with the truth about each session, in the
// corpus's order.
func GenerateWithTruth(cfg Config) (*sample.Corpus, []Session, error) {
	if err := cfg.Validate(); err != nil {
		return nil, nil, err
	}
	start := cfg.Start.UTC().Truncate(time.Millisecond)
	spacing := min(3*time.Minute, 30*time.Minute/time.Duration(cfg.Sessions))
	c := &sample.Corpus{}
	var truth []Session
	for i := range cfg.Sessions {
		x := newRNG(cfg.Seed, uint64(i)+1)
		at := start.Add(time.Duration(i) * spacing)
		if i > 0 {
			at = at.Add(x.Millis(0, int(spacing/time.Millisecond)/2))
		}
		id := "sess_" + x.Chars(12, base32Alphabet)
		var (
			r   rendered
			st  Session
			err error
		)
		if runtimeShaped(x, i, cfg.Faults) {
			r, st, err = runtimeSession(x, i, id, cfg, at).render()
		} else {
			r, st, err = planSession(x, i, id, cfg, at)
		}
		if err != nil {
			return nil, nil, err
		}
		c.Files = append(c.Files, r.file)
		c.Side = append(c.Side, r.side...)
		truth = append(truth, st)
	}
	return c, truth, nil
}

// planFaults is the number of plan-shaped fault sessions (0 to 4); the
// runtime-shaped ones follow them.
const planFaults = 5

// runtimeShaped decides the shape of session i: the fault sessions' is
// fixed, a clean session is runtime-shaped three times in four.
func runtimeShaped(x *rng, i int, faults bool) bool {
	if faults && i < MinFaultSessions {
		return i >= planFaults
	}
	return x.Chance(0.75)
}

// runtimeSession builds runtime-shaped session i: a Claude provider when
// the session's model is a Claude model (or for the Claude fault
// scenarios), else an ACP agent.
func runtimeSession(x *rng, i int, id string, cfg Config, at time.Time) *rsession {
	model := cfg.Models[i%len(cfg.Models)]
	provider := ProviderACP
	if isClaude(model) {
		provider = ProviderClaude
	}
	if cfg.Faults && i < MinFaultSessions {
		provider = ProviderClaude
		if i-planFaults == 2 {
			provider = ProviderACP
		}
	}
	s := newRSession(x, id, provider, claudeModel(cfg.Models, i), at)
	if !cfg.Faults || i >= MinFaultSessions {
		s.cleanRuntime()
		return s
	}
	[]func(){s.crashedRuntime, s.recoveredRuntime, s.suspendedRuntime, s.cancelledRuntime}[i-planFaults]()
	return s
}

// planSession builds and renders plan-shaped session i.
func planSession(x *rng, i int, id string, cfg Config, at time.Time) (rendered, Session, error) {
	s := newSession(x, id, cfg.Models[i%len(cfg.Models)], at)
	s.scenario(i, cfg.Faults)
	r, err := s.render()
	if err != nil {
		return rendered{}, Session{}, err
	}
	name := "clean"
	if cfg.Faults && i < planFaults {
		name = planScenarios[i]
	}
	lines := r.file.Lines
	return r, Session{ID: id, Shape: ShapePlan, Scenario: name, Over: r.file.EndReason != "",
		EndReason: r.file.EndReason, Final: lines[len(lines)-1].State}, nil
}

// planScenarios name the plan-shaped fault scenarios.
var planScenarios = []string{"crashed", "interrupted", "damaged", "tokenless", "waiting"}

// isClaude tells whether model is a Claude model.
func isClaude(model string) bool { return strings.HasPrefix(model, "claude") }

// claudeModel is the model a Claude provider's session i streams under:
// its configured model when a Claude one, else the next Claude model
// configured, else DefaultClaudeModel.
func claudeModel(models []string, i int) string {
	for k := range models {
		if m := models[(i+k)%len(models)]; isClaude(m) {
			return m
		}
	}
	return DefaultClaudeModel
}
