package cortex

import "time"

// linesLimit caps result_summary in Lines so that lines stay near the
// spec's typical 200 B to 2 KB.
const linesLimit = 1536

// linesStart is the time of the first event Lines produces.
var linesStart = time.Date(2026, 2, 23, 14, 30, 22, 0, time.UTC)

// Lines returns n valid, realistic journal lines for benchmarks, each
// without its terminating newline. They come from clean sessions that
// complete, fail, pause for an approval or are cancelled in turn, so given
// a few hundred lines every v1 event type appears; the average line is
// about 430 bytes. The same seed and n always give the same lines, and a
// longer result starts with the lines of a shorter one. n <= 0 gives nil.
func Lines(seed int64, n int) [][]byte {
	if n <= 0 {
		return nil
	}
	g := newGen(seed, DefaultModels, linesLimit, linesStart)
	out := make([][]byte, 0, n)
	at := linesStart
	for i := 0; len(out) < n; i++ {
		x := newRNG(seed, uint64(i)+1)
		js := g.newJob(x, i, at)
		files, err := g.runJob(js, g.cleanPlans(js, i))
		if err != nil {
			return out // cannot happen: the events always encode
		}
		for _, f := range files {
			for _, l := range f.Lines {
				if len(out) == n {
					return out
				}
				out = append(out, []byte(l.Text))
			}
		}
		at = js.clock.Add(time.Duration(x.Between(1, 90)) * time.Second)
	}
	return out
}

// cleanPlans cycles through the four ways a clean job ends.
func (g *gen) cleanPlans(js *jobState, i int) []sessionPlan {
	x := js.x
	p := sessionPlan{pod: pick(x, g.pods), steps: g.steps(js, x.Between(3, 7))}
	switch i % 4 {
	case 0:
		p.end = EndCompleted
	case 1:
		p.end = EndFailed
	case 2:
		return g.resumeJob(js, false)
	default:
		p.end = EndCancelled
	}
	return []sessionPlan{g.ending(js, p)}
}
