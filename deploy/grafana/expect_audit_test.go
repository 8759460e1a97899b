package grafana

import "github.com/journalship/journalship/internal/sample"

const auditUID = "journalship-audit-trail"

// auditExpectations are the audit trail's targets.
func auditExpectations() map[string]expectFunc {
	k := func(panel, ref string) string { return expectKey(auditUID, panel, ref) }
	inJob := func(pred func(*fact) bool, val func(*fact) float64, tol float64) expectFunc {
		return func(w *world, sc scenario) want {
			return want{values: orZero(w.sum(and(pred, sc.inJob), none, val)), tol: tol}
		}
	}
	out := map[string]expectFunc{
		k("Events", "A"):    inJob(all, one, 0),
		k("LLM calls", "A"): inJob(hasRole("llm_response"), one, 0),
		k("Cost", "A"):      inJob(priced, dollars, dollarTol),
		k("Errors", "A"):    inJob(hasRole("error"), one, 0),
		k("Journals", "A"): func(w *world, sc scenario) want {
			return want{values: orZero(distinctFiles(w, sc.inJob, none))}
		},
		k("Integrity annotations", "A"): func(w *world, sc scenario) want {
			v := w.count(and(sc.inJob, func(f *fact) bool { return len(f.kinds) > 0 }), none)
			for range w.files(func(f *sample.File) bool { return len(f.PartialTail) > 0 && sc.fileInJob(f) }) {
				v[""]++
			}
			return want{values: orZero(v)}
		},
		k("Integrity: gaps, corruption, cut-off sessions", "A"): func(w *world, sc scenario) want {
			return want{logs: w.integrityEntries(sc)}
		},
		k("Timeline", "A"):                                     func(w *world, sc scenario) want { return want{logs: w.timeline(sc)} },
		k("LLM calls: tokens, cache, cost", "A"):               func(w *world, sc scenario) want { return want{logs: w.llmCalls(sc)} },
		k("Tool calls", "A"):                                   func(w *world, sc scenario) want { return want{logs: w.toolCalls(sc)} },
		k("Starts, status, checkpoints, errors and ends", "A"): func(w *world, sc scenario) want { return want{logs: w.milestones(sc)} },
		k("File verdicts", "A"):                                func(w *world, sc scenario) want { return want{logs: w.fileVerdicts(sc)} },
	}
	for i, val := range tokenKeys {
		out[k("Tokens", string(rune('A'+i)))] = inJob(counted, val, 0)
	}
	for ref, e := range recentJobs() {
		out[k("Recent jobs", ref)] = e
	}
	for ref, e := range sessionsOfTheJob() {
		out[k("Sessions of the job", ref)] = e
	}
	return out
}

// recentJobs are the Recent jobs table's targets: by format and job (a
// Cortex Plane job, else a session, else a run), on the selected nodes
// and formats.
func recentJobs() map[string]expectFunc {
	by := []string{"format", "job"}
	unitOf := func(f *fact) string { return key(f.format, f.unit) }
	perJob := func(pred func(*fact) bool) expectFunc {
		return func(w *world, sc scenario) want {
			return want{by: by, values: w.count(and(pred, sc.formatOK, func(f *fact) bool { return sc.selected("node", f.node) }), unitOf)}
		}
	}
	// tails counts the truncated_tail markers of the selected files by job.
	tails := func(w *world, sc scenario, v map[string]float64) map[string]float64 {
		for _, f := range w.files(func(f *sample.File) bool {
			return len(f.PartialTail) > 0 && sc.selected("node", w.nodeOf(f)) && sc.fileFormatOK(f)
		}) {
			v[key(f.Format, synthUnit(f))]++
		}
		return v
	}
	return map[string]expectFunc{
		"A": perJob(all),
		"B": func(w *world, sc scenario) want {
			return want{by: by, values: distinctFiles(w, func(f *fact) bool { return sc.formatOK(f) && sc.selected("node", f.node) }, unitOf)}
		},
		"C": perJob(hasRole("llm_response")),
		"D": perJob(hasRole("error")),
		"E": func(w *world, sc scenario) want {
			v := w.count(func(f *fact) bool { return len(f.kinds) > 0 && sc.formatOK(f) && sc.selected("node", f.node) }, unitOf)
			return want{by: by, values: tails(w, sc, v)} // the markers are annotated too
		},
		"F": func(w *world, sc scenario) want { return want{by: by, values: tails(w, sc, map[string]float64{})} },
	}
}

// sessionsOfTheJob are the Sessions of the job table's targets: the whole
// job, whatever the Session selection.
func sessionsOfTheJob() map[string]expectFunc {
	inJob := func(sc scenario) func(*fact) bool {
		return func(f *fact) bool { return f.unit == sc.job() && sc.formatOK(f) }
	}
	return map[string]expectFunc{
		"A": func(w *world, sc scenario) want {
			return want{by: []string{"session_id", "pod", "agent_id"}, values: w.count(inJob(sc),
				func(f *fact) string { return key(f.file.SessionID, f.file.Pod, f.agent) })}
		},
		"B": func(w *world, sc scenario) want {
			return want{by: []string{"session_id", "end_reason"}, values: w.count(and(inJob(sc), hasRole("session_end")),
				func(f *fact) string { return key(f.file.SessionID, f.endReason) })}
		},
		"C": func(w *world, sc scenario) want {
			v := map[string]float64{}
			for _, f := range w.files(func(f *sample.File) bool {
				return synthUnit(f) == sc.job() && len(f.PartialTail) > 0 && sc.fileFormatOK(f)
			}) {
				v[synthSession(f)]++
			}
			return want{by: []string{"session_id"}, values: v}
		},
	}
}

// distinctFiles counts, by keyOf, the journal files of the shipped lines
// pred accepts (count by (...) (sum by (..., file) (...))).
func distinctFiles(w *world, pred func(*fact) bool, keyOf func(*fact) string) map[string]float64 {
	seen := map[string]bool{}
	out := map[string]float64{}
	for i := range w.facts {
		f := &w.facts[i]
		if !f.shipped || !pred(f) {
			continue
		}
		k := keyOf(f)
		if fk := key(k, f.file.Rel); !seen[fk] {
			seen[fk] = true
			out[k]++
		}
	}
	return out
}
