package grafana

import "github.com/journalship/journalship/internal/sample"

const auditUID = "journalship-audit-trail"

// auditExpectations are the audit trail's targets.
func auditExpectations() map[string]expectFunc {
	k := func(panel, ref string) string { return expectKey(auditUID, panel, ref) }
	perJob := func(pred func(*fact) bool) expectFunc {
		return func(w *world, sc scenario) want {
			return want{by: []string{"job_id"}, values: w.count(and(pred, func(f *fact) bool { return sc.selected("node", f.node) }), byJob)}
		}
	}
	inJob := func(pred func(*fact) bool, val func(*fact) float64, tol float64) expectFunc {
		return func(w *world, sc scenario) want {
			return want{values: orZero(w.sum(and(pred, sc.inJob), none, val)), tol: tol}
		}
	}
	one := func(*fact) float64 { return 1 }
	return map[string]expectFunc{
		k("Recent jobs", "A"): perJob(all),
		k("Recent jobs", "B"): perJob(isType(sample.TypeSessionStart)),
		k("Recent jobs", "C"): perJob(isType(sample.TypeLLMResponse)),
		k("Recent jobs", "D"): perJob(isType(sample.TypeError)),
		k("Recent jobs", "E"): func(w *world, sc scenario) want {
			v := w.count(func(f *fact) bool { return len(f.kinds) > 0 && sc.selected("node", f.node) }, byJob)
			for _, f := range w.files(func(f *sample.File) bool { return len(f.PartialTail) > 0 && sc.selected("node", w.nodes[f.JobID]) }) {
				v[f.JobID]++ // the truncated_tail marker is annotated too
			}
			return want{by: []string{"job_id"}, values: v}
		},
		k("Recent jobs", "F"): func(w *world, sc scenario) want {
			v := map[string]float64{}
			for _, f := range w.files(func(f *sample.File) bool { return len(f.PartialTail) > 0 && sc.selected("node", w.nodes[f.JobID]) }) {
				v[f.JobID]++
			}
			return want{by: []string{"job_id"}, values: v}
		},
		k("Events", "A"):    inJob(all, one, 0),
		k("Sessions", "A"):  inJob(isType(sample.TypeSessionStart), one, 0),
		k("LLM calls", "A"): inJob(isType(sample.TypeLLMResponse), one, 0),
		k("Tokens", "A"):    inJob(validResponse, tokensIn, 0),
		k("Tokens", "B"):    inJob(validResponse, tokensOut, 0),
		k("Cost", "A"):      inJob(priced, dollars, 1e-9),
		k("Errors", "A"):    inJob(isType(sample.TypeError), one, 0),
		k("Integrity annotations", "A"): func(w *world, sc scenario) want {
			v := w.count(and(sc.inJob, func(f *fact) bool { return len(f.kinds) > 0 }), none)
			for range w.files(func(f *sample.File) bool { return len(f.PartialTail) > 0 && sc.fileInJob(f) }) {
				v[""]++
			}
			return want{values: orZero(v)}
		},
		k("Sessions of the job", "A"): func(w *world, sc scenario) want {
			return want{by: []string{"session_id", "pod", "agent_id"}, values: w.count(
				func(f *fact) bool { return f.file.JobID == sc.job() },
				func(f *fact) string { return key(f.file.SessionID, f.file.Pod, f.file.AgentID) })}
		},
		k("Sessions of the job", "B"): func(w *world, sc scenario) want {
			return want{by: []string{"session_id", "reason"}, values: w.count(
				func(f *fact) bool { return f.file.JobID == sc.job() && f.eventType == sample.TypeSessionEnd },
				func(f *fact) string { return key(f.file.SessionID, f.str("reason")) })}
		},
		k("Sessions of the job", "C"): func(w *world, sc scenario) want {
			v := map[string]float64{}
			for _, f := range w.files(func(f *sample.File) bool { return f.JobID == sc.job() && len(f.PartialTail) > 0 }) {
				v[f.SessionID]++
			}
			return want{by: []string{"session_id"}, values: v}
		},
		k("Integrity: gaps, corruption, cut-off sessions", "A"): func(w *world, sc scenario) want {
			return want{logs: w.integrityEntries(sc)}
		},
		k("Timeline", "A"): func(w *world, sc scenario) want { return want{logs: w.timeline(sc)} },
		k("LLM calls: tokens, finish reason, cost", "A"): func(w *world, sc scenario) want { return want{logs: w.llmCalls(sc)} },
		k("Tool calls", "A"):                             func(w *world, sc scenario) want { return want{logs: w.toolCalls(sc)} },
		k("Errors, checkpoints and approvals", "A"):      func(w *world, sc scenario) want { return want{logs: w.milestones(sc)} },
		k("File verdicts", "A"):                          func(w *world, sc scenario) want { return want{logs: w.fileVerdicts(sc)} },
	}
}
