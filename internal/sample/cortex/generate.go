package cortex

import (
	"time"

	"github.com/journalship/journalship/internal/sample"
)

// FormatName is the format label of the files Generate writes.
const FormatName = "cortex"

// gen holds what all jobs of a corpus share.
type gen struct {
	seed   int64
	models []string
	limit  int // result_summary limit in characters
	rsHash string
	pods   []string
	agents []string
}

func newGen(seed int64, models []string, limit int, start time.Time) *gen {
	x := newRNG(seed, 0)
	g := &gen{seed: seed, models: models, limit: limit, rsHash: x.Chars(5, k8sAlphabet)}
	for range 4 {
		g.pods = append(g.pods, g.newPod(x))
	}
	for range 3 {
		g.agents = append(g.agents, x.uuidV7(start.Add(-time.Duration(x.Between(24, 24*60))*time.Hour)))
	}
	return g
}

// newPod returns a pod name of the agent-worker Deployment.
func (g *gen) newPod(x *rng) string {
	return "agent-worker-" + g.rsHash + "-" + x.Chars(5, k8sAlphabet)
}

// Generate builds the corpus described by cfg. It returns a *ConfigError
// when cfg is invalid.
func Generate(cfg Config) (*sample.Corpus, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	start := cfg.Start.UTC().Truncate(time.Millisecond)
	g := newGen(cfg.Seed, cfg.Models, maxResultSummary, start)
	spacing := min(3*time.Minute, 30*time.Minute/time.Duration(cfg.Jobs))
	c := &sample.Corpus{}
	for i := range cfg.Jobs {
		x := newRNG(cfg.Seed, uint64(i)+1)
		at := start.Add(time.Duration(i) * spacing)
		if i > 0 {
			at = at.Add(time.Duration(x.Intn(int(spacing/time.Millisecond)/2+1)) * time.Millisecond)
		}
		js := g.newJob(x, i, at)
		files, err := g.runJob(js, g.scenario(js, i, cfg.Faults))
		if err != nil {
			return nil, err
		}
		c.Files = append(c.Files, files...)
	}
	return c, nil
}

// newJob creates job i, whose first session starts at at.
func (g *gen) newJob(x *rng, i int, at time.Time) *jobState {
	js := &jobState{x: x, th: newTheme(x), clock: at, messages: 2,
		model: g.models[i%len(g.models)], agentID: pick(x, g.agents)}
	js.id = x.uuidV7(at.Add(-time.Duration(x.Between(200, 20000)) * time.Millisecond))
	js.ctx = x.Between64(9000, 24000) + x.Between64(150, 1500) // system prompt and tool schemas, then the task
	js.workerID = x.Between64(100000, 9000000)
	return js
}

// runJob builds and renders the job's sessions one after the other.
func (g *gen) runJob(js *jobState, plans []sessionPlan) ([]sample.File, error) {
	files := make([]sample.File, 0, len(plans))
	for k, p := range plans {
		start := js.clock
		if k > 0 {
			start = start.Add(p.pause)
		}
		recs := g.buildSession(js, p, start)
		m := sessionMeta{jobID: js.id, sessionID: recs[0].hdr.SessionID, pod: p.pod, agentID: js.agentID, start: start, end: p.end}
		f, err := render(js.x, m, recs)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	return files, nil
}
