package cortex

import "time"

// scenario plans job i's sessions. Jobs 0 to 3 have fixed shapes and, with
// faults, carry the fault scenarios; jobs from 4 on are clean and end in a
// random way.
func (g *gen) scenario(js *jobState, i int, faults bool) []sessionPlan {
	switch i {
	case 0:
		return g.resumeJob(js, faults)
	case 1:
		return []sessionPlan{g.gapJob(js, faults)}
	case 2:
		return []sessionPlan{g.tornJob(js, faults)}
	case 3:
		return []sessionPlan{g.regressionJob(js, faults)}
	}
	return g.randomJob(js)
}

// resumeJob: with faults, a crash (partial last line, no SESSION_END), the
// resumed session on a new pod ending in approval_pause, then the session
// after the approval running to completion; without faults only the last
// two.
func (g *gen) resumeJob(js *jobState, faults bool) []sessionPlan {
	x := js.x
	var plans []sessionPlan
	pod := pick(x, g.pods)
	if faults {
		crash := sessionPlan{pod: pod, steps: g.steps(js, x.Between(3, 4))}
		last := &crash.steps[len(crash.steps)-1]
		last.crash, last.tools = true, max(last.tools, 1)
		plans = append(plans, crash)
		pod = g.newPod(x) // the crashed pod was replaced
	}
	pause := sessionPlan{pod: pod, pause: time.Duration(x.Between(40, 150)) * time.Second,
		steps: g.steps(js, x.Between(2, 4)), end: EndApprovalPause}
	plans = append(plans, g.ending(js, pause))
	done := sessionPlan{pod: pod, pause: time.Duration(x.Between(6*60, 25*60)) * time.Second,
		steps: g.steps(js, x.Between(3, 4)), end: EndCompleted, resumed: true}
	done.steps[0].firstTool, done.steps[0].tools = approvalTool, max(done.steps[0].tools, 1)
	done.steps[1].firstTool, done.steps[1].tools, done.steps[1].longResult = "read_file", max(done.steps[1].tools, 1), true
	return append(plans, g.ending(js, done))
}

// gapJob: two lost events (a TOOL_START/TOOL_RESULT pair) and an
// LLM_RESPONSE whose finish_reason is outside the enum; completes.
func (g *gen) gapJob(js *jobState, faults bool) sessionPlan {
	x := js.x
	p := sessionPlan{pod: pick(x, g.pods), steps: g.steps(js, x.Between(5, 6)), end: EndCompleted}
	if faults {
		p.steps[2].tools, p.steps[2].dropPair = x.Between(2, 3), true
		p.steps[3].tools, p.steps[3].badFinish = 0, true
	}
	return g.ending(js, p)
}

// tornJob: an interleaved write tearing an LLM_RESPONSE, then an unknown
// MEMORY_COMPACTED event; fails.
func (g *gen) tornJob(js *jobState, faults bool) sessionPlan {
	x := js.x
	p := sessionPlan{pod: pick(x, g.pods), steps: g.steps(js, x.Between(4, 6)), end: EndFailed}
	if faults {
		p.steps[1].tools, p.steps[1].tornResp = max(p.steps[1].tools, 1), true
		p.steps[2].compact = true
	}
	return g.ending(js, p)
}

// regressionJob: an ERROR with a stale seq, an input_summary over 1024
// characters and a malformed input_hash; cancelled.
func (g *gen) regressionJob(js *jobState, faults bool) sessionPlan {
	x := js.x
	p := sessionPlan{pod: pick(x, g.pods), steps: g.steps(js, x.Between(4, 6)), end: EndCancelled}
	if faults {
		p.steps[1].tools, p.steps[1].staleError = max(p.steps[1].tools, 1), true
		p.steps[2].tools, p.steps[2].longSummary = max(p.steps[2].tools, 1), true
		p.steps[3].tools, p.steps[3].badHash = max(p.steps[3].tools, 1), true
	}
	return g.ending(js, p)
}

// randomJob: a clean job that completes, fails, is cancelled, or pauses
// for an approval and then completes.
func (g *gen) randomJob(js *jobState) []sessionPlan {
	x := js.x
	pod := pick(x, g.pods)
	first := sessionPlan{pod: pod, steps: g.steps(js, x.Between(3, 7))}
	switch x.Weighted(60, 15, 10, 15) {
	case 0:
		first.end = EndCompleted
	case 1:
		first.end = EndFailed
	case 2:
		first.end = EndCancelled
	default:
		first.end = EndApprovalPause
		done := sessionPlan{pod: pick(x, g.pods), pause: time.Duration(x.Between(3*60, 20*60)) * time.Second,
			steps: g.steps(js, x.Between(2, 4)), end: EndCompleted, resumed: true}
		done.steps[0].firstTool, done.steps[0].tools = approvalTool, max(done.steps[0].tools, 1)
		return []sessionPlan{g.ending(js, first), g.ending(js, done)}
	}
	return []sessionPlan{g.ending(js, first)}
}

// steps draws n ordinary steps.
func (g *gen) steps(js *jobState, n int) []stepPlan {
	x := js.x
	out := make([]stepPlan, n)
	for i := range out {
		s := &out[i]
		s.tools = x.Weighted(10, 45, 30, 15)
		s.model = js.model
		if len(g.models) > 1 && x.Chance(0.12) {
			s.model = pick(x, g.models)
		}
		if s.tools == 0 && x.Chance(0.25) {
			s.finish = "max_tokens"
		}
	}
	return out
}

// ending shapes the last step for the session's end.
func (g *gen) ending(js *jobState, p sessionPlan) sessionPlan {
	last := &p.steps[len(p.steps)-1]
	switch p.end {
	case EndCompleted:
		last.tools, last.finish = 0, ""
	case EndFailed:
		last.tools, last.failLast = max(last.tools, 1), true
	case EndApprovalPause:
		last.tools, last.approval, last.firstTool = 1, true, approvalTool
	}
	return p
}
