package grafana

import (
	"fmt"

	"github.com/journalship/journalship/internal/lokiquery"
	"github.com/journalship/journalship/internal/sample"
)

const healthUID = "journalship-pipeline-health"

// healthExpectations are the pipeline health dashboard's targets.
func healthExpectations() map[string]expectFunc {
	k := func(panel, ref string) string { return expectKey(healthUID, panel, ref) }
	counter := func(by string, counts func(w *world) map[string]float64) [2]expectFunc {
		inc := func(w *world, sc scenario) want { return want{by: labels(by), values: counts(w), zeros: true} }
		rate := func(w *world, sc scenario) want {
			return want{by: labels(by), values: perSecond(counts(w), sc, 1), zeros: true, tol: 1e-12}
		}
		return [2]expectFunc{inc, rate}
	}
	outcomes := counter("outcome", func(w *world) map[string]float64 { return w.allLines(func(f *fact) string { return f.outcome }, one) })
	shipped := counter("", func(w *world) map[string]float64 { return w.count(isLine, none) })
	bytes := counter("stage", func(w *world) map[string]float64 {
		v := w.allLines(func(*fact) string { return "received" }, lineBytes)
		v["shipped"] = w.sum(isLine, none, lineBytes)[""]
		return v
	})
	dead := counter("reason", func(w *world) map[string]float64 {
		// The world's only dead letters are its lines over Max_Line_Bytes.
		return w.allLines(func(*fact) string { return "line_too_long" }, func(f *fact) float64 { return b2f(!f.shipped) })
	})
	retries := counter("cause", func(w *world) map[string]float64 {
		v := map[string]float64{}
		for c, n := range w.retries {
			v[c] = float64(n)
		}
		return v
	})
	kinds := counter("kind", (*world).kindCounts)
	return map[string]expectFunc{
		k("Lines per second by outcome", "A"):               outcomes[1],
		k("Lines per second by outcome", "B"):               shipped[1],
		k("Bytes per second", "A"):                          bytes[1],
		k("Lines shipped", "A"):                             shipped[0],
		k("Journal events in Loki by format and type", "A"): eventsByType,
		k("Dead-lettered lines by reason", "A"):             dead[0],
		k("Dead letters per second", "A"):                   dead[1],
		k("Retries by cause", "A"):                          retries[0],
		k("Retries per second", "A"):                        retries[1],
		k("Ledger errors", "A"):                             func(w *world, sc scenario) want { return single(0) },
		k("Annotations by kind", "A"):                       kinds[0],
		k("Annotations per second", "A"):                    kinds[1],
		k("Seqs missing", "A"): func(w *world, sc scenario) want {
			return want{values: w.sum(all, none, func(f *fact) float64 { return float64(f.missing) })}
		},
		k("Truncated tails", "A"): func(w *world, sc scenario) want {
			return single(float64(len(w.files(func(f *sample.File) bool { return len(f.PartialTail) > 0 }))))
		},
		k("Files finished by severity", "A"): func(w *world, sc scenario) want {
			v := map[string]float64{}
			for _, f := range w.files(func(*sample.File) bool { return true }) {
				v[severity(f)]++
			}
			return want{by: labels("severity"), values: v, zeros: true}
		},
		k("Where events were lost", "A"): func(w *world, sc scenario) want { return want{logs: w.lostEvents(sc)} },
		k("Files deleted by rule", "A"): func(w *world, sc scenario) want {
			return want{by: labels("rule"), values: w.ret.deletedBy(0), zeros: true}
		},
		k("Bytes deleted by rule", "A"): func(w *world, sc scenario) want {
			return want{by: labels("rule"), values: w.ret.deletedBy(1), zeros: true}
		},
		k("Job directories removed", "A"):           func(w *world, sc scenario) want { return single(float64(w.ret.dirsDeleted)) },
		k("Files kept by reason (last sweep)", "A"): func(w *world, sc scenario) want { return want{by: labels("reason"), values: w.ret.kept} },
		k("Unshipped files past max age", "A"):      func(w *world, sc scenario) want { return single(0) },
		k("Since the last sweep", "A"): func(w *world, sc scenario) want {
			// The gauge holds the sweep's end in whole seconds; time() is
			// the evaluation time in milliseconds.
			elapsed := float64(w.retAt.UnixMilli())/1000 - float64(w.ret.sweepEnd.Unix())
			return want{values: map[string]float64{"": elapsed}, tol: 1e-9}
		},
		k("Sweeps by outcome", "A"): func(w *world, sc scenario) want {
			return want{by: labels("outcome"), values: map[string]float64{"ok": 1}, zeros: true}
		},
		k("Retention errors", "A"): func(w *world, sc scenario) want { return single(0) },
	}
}

func labels(by string) []string {
	if by == "" {
		return nil
	}
	return []string{by}
}

func one(*fact) float64         { return 1 }
func lineBytes(f *fact) float64 { return float64(len(f.line.Text)) }
func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// allLines sums val over every complete line, shipped or dead-lettered.
func (w *world) allLines(keyOf func(*fact) string, val func(*fact) float64) map[string]float64 {
	out := map[string]float64{}
	for i := range w.facts {
		if f := &w.facts[i]; isLine(f) {
			out[keyOf(f)] += val(f)
		}
	}
	return out
}

// kindCounts counts the annotations of the shipped lines by kind, as
// journalship_annotations_total does: the shared kinds and each format's
// own (not those of the entries a finalizer builds).
func (w *world) kindCounts() map[string]float64 {
	v := map[string]float64{}
	for i := range w.facts {
		if f := &w.facts[i]; f.shipped && isLine(f) {
			for _, kd := range f.kinds {
				v[kd]++
			}
		}
	}
	return v
}

// eventsByType: entries in Loki by format and event_type on the selected
// nodes and formats, journalship's own entries included.
func eventsByType(w *world, sc scenario) want {
	v := w.count(func(f *fact) bool { return sc.selected("node", f.node) && sc.formatOK(f) }, func(f *fact) string { return key(f.format, f.eventType) })
	for _, f := range w.files(func(f *sample.File) bool { return sc.selected("node", w.nodeOf(f)) && sc.fileFormatOK(f) }) {
		v[key(f.Format, "file_summary")]++
		if len(f.PartialTail) > 0 {
			v[key(f.Format, "truncated_tail")]++
		}
	}
	return want{by: []string{"format", "event_type"}, values: v}
}

// lostEvents: every line after a seq gap (or a Codelia request seq gap) on
// the selected nodes and formats, with its job, session and run.
func (w *world) lostEvents(sc scenario) func([]lokiquery.Entry) error {
	var wants []entryWant
	for i := range w.facts {
		f := &w.facts[i]
		if !f.shipped || (f.gap == "" && f.requestGap == "") || !sc.selected("node", f.node) || !sc.formatOK(f) {
			continue
		}
		missing := "seq " + f.gap
		if f.gap == "" {
			missing = "request seq " + f.requestGap
		}
		line := fmt.Sprintf("missing %s before seq %s (%s %s)", missing, seqText(f), f.format, f.eventType) +
			prefixed(" · job ", f.file.JobID) + prefixed(" · session ", f.file.SessionID) + prefixed(" · run ", runIDOf(f))
		wants = append(wants, entryWant{place: w.linePlace(f), check: func(e lokiquery.Entry) error { return lineIs(e, line) }})
	}
	return func(es []lokiquery.Entry) error { return matchEntries(es, wants) }
}

// deletedBy returns files (i=0) or bytes (i=1) deleted by rule.
func (p retentionPlan) deletedBy(i int) map[string]float64 {
	out := map[string]float64{}
	for rule, v := range p.deleted {
		out[rule] = v[i]
	}
	return out
}

// expectations gathers every dashboard's targets.
func expectations() map[string]expectFunc {
	out := map[string]expectFunc{}
	for _, m := range []map[string]expectFunc{auditExpectations(), costExpectations(), healthExpectations()} {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

// variableValues are what each query variable must list.
func (w *world) variableValues() map[string][]string {
	return map[string][]string{
		expectKey(auditUID, "$node", ""):      {"node-a", "node-b"},
		expectKey(auditUID, "$format", ""):    formats,
		expectKey(costUID, "$tenant", ""):     {tenantAcme, tenantDefault},
		expectKey(costUID, "$format", ""):     formats,
		expectKey(healthUID, "$instance", ""): {w.shipAddr},
		expectKey(healthUID, "$node", ""):     {"node-a", "node-b"},
		expectKey(healthUID, "$format", ""):   formats,
	}
}
