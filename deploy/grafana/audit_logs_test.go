package grafana

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/journalship/journalship/internal/lokiquery"
	"github.com/journalship/journalship/internal/sample"
)

// The audit trail's log panels, entry by entry.

// journalWants builds the wants of the shipped lines of the scenario's job
// that pred accepts.
func (w *world) journalWants(sc scenario, pred func(*fact) bool, check func(f *fact, e lokiquery.Entry) error) []entryWant {
	var out []entryWant
	for i := range w.facts {
		f := &w.facts[i]
		if f.shipped && sc.inJob(f) && pred(f) {
			out = append(out, entryWant{place: w.linePlace(f), check: func(e lokiquery.Entry) error { return check(f, e) }})
		}
	}
	return out
}

// tailWants are the truncated_tail markers of the scenario's files.
func (w *world) tailWants(sc scenario, check func(f *sample.File, e lokiquery.Entry) error) []entryWant {
	var out []entryWant
	for _, f := range w.files(func(f *sample.File) bool { return len(f.PartialTail) > 0 && sc.fileInJob(f) }) {
		out = append(out, entryWant{place: w.synthPlace("truncated_tail", f), check: func(e lokiquery.Entry) error { return check(f, e) }})
	}
	return out
}

// tailMarkerText is the start of a truncated_tail entry's text.
func (w *world) tailMarkerText(f *sample.File) string {
	return fmt.Sprintf(`{"journalship":"truncated_tail","file":%q,"offset":%d,"bytes":%d,`, w.path(f), len(f.Data)-len(f.PartialTail), len(f.PartialTail))
}

// alarm is the level the audit trail gives an annotated entry.
func alarm(kinds []string) string {
	for _, k := range kinds {
		if strings.Contains(k, "corrupt") || strings.Contains(k, "truncated_tail") {
			return "critical"
		}
	}
	return "warning"
}

func (w *world) integrityEntries(sc scenario) func([]lokiquery.Entry) error {
	wants := w.journalWants(sc, func(f *fact) bool { return len(f.kinds) > 0 }, func(f *fact, e lokiquery.Entry) error {
		details := ""
		if f.gap != "" {
			details = " · missing seq " + f.gap
		}
		line := "⚠ " + e.Metadata["annotations"]
		sep := " | " + f.eventType + " seq=" + seqText(f) + " | "
		err := firstErr(sameKinds(e, f), levelIs(e, alarm(f.kinds)))
		head, text, found := strings.Cut(e.Line, sep)
		if err == nil && (!strings.HasPrefix(head, line+details) || !found) {
			err = fmt.Errorf("line %.200q does not start with %q and go on with %q", e.Line, line+details, sep)
		}
		return firstErr(err, textIs(f, text))
	})
	wants = append(wants, w.tailWants(sc, func(f *sample.File, e lokiquery.Entry) error {
		prefix := "⚠ truncated_tail | truncated_tail seq= | " + w.tailMarkerText(f)
		if !strings.HasPrefix(e.Line, prefix) {
			return fmt.Errorf("line %.200q, want it to start with %.200q", e.Line, prefix)
		}
		return levelIs(e, "critical")
	})...)
	return func(es []lokiquery.Entry) error { return matchEntries(es, wants) }
}

// timeline: every line, marker and summary of the job, in time order, each
// line "#seq type ⚠ annotations  <journal line>", the marker after every
// line of its session.
func (w *world) timeline(sc scenario) func([]lokiquery.Entry) error {
	wants := w.journalWants(sc, all, func(f *fact, e lokiquery.Entry) error {
		annots := ""
		if len(f.kinds) > 0 {
			annots = " ⚠ " + e.Metadata["annotations"]
		}
		level := "info"
		switch {
		case len(f.kinds) > 0:
			level = alarm(f.kinds)
		case f.role == "error":
			level = "error"
		}
		head := "#" + seqText(f) + " " + f.eventType + annots + "  "
		text, found := strings.CutPrefix(e.Line, head)
		if !found {
			return fmt.Errorf("line %.200q does not start with %q", e.Line, head)
		}
		return firstErr(sameKinds(e, f), levelIs(e, level), textIs(f, text))
	})
	wants = append(wants, w.tailWants(sc, func(f *sample.File, e lokiquery.Entry) error {
		prefix := "# truncated_tail ⚠ truncated_tail  " + w.tailMarkerText(f)
		if !strings.HasPrefix(e.Line, prefix) {
			return fmt.Errorf("line %.200q, want it to start with %.200q", e.Line, prefix)
		}
		return levelIs(e, "critical")
	})...)
	for _, f := range w.files(sc.fileInJob) {
		wants = append(wants, entryWant{place: w.synthPlace("file_summary", f), check: func(e lokiquery.Entry) error {
			if !strings.HasPrefix(e.Line, "# file_summary ⚠ file_summary") || !strings.Contains(e.Line, `  {"journalship":"file_summary"`) {
				return fmt.Errorf("line %.200q is not a file summary", e.Line)
			}
			return nil
		}})
	}
	return func(es []lokiquery.Entry) error {
		return firstErr(matchEntries(es, wants), sortedByTime(es), w.inFileOrder(es))
	}
}

// inFileOrder: within each session, entries whose times differ come in
// file order, and the truncated_tail marker comes after every line. Lines
// without a time of their own before the file's first line with one (a
// torn first line, a Claude Code transcript's opening summary lines) have
// no line before them to take their time from: they are stamped when read
// (docs/loki.md, The line and its time), and have no place to check; nor
// have the entries a format builds from side files (no byte offset). A
// file whose own clock went back (a line annotated timestamp_regression)
// is not in file order by its own account: it is not checked.
func (w *world) inFileOrder(es []lokiquery.Entry) error {
	type last struct {
		offset int64
		at     lokiquery.Entry
	}
	firstTimed := map[string]int64{} // file → offset of its first line with a time of its own
	regressed := map[string]bool{}   // files with a timestamp_regression
	for _, e := range es {
		if slices.Contains(kindsOf(e), "timestamp_regression") {
			regressed[e.Metadata["file"]] = true
		}
		off, err := strconv.ParseInt(e.Metadata["byte_offset"], 10, 64)
		if err != nil || strings.Contains(e.Metadata["annotations"], "timestamp_fallback") {
			continue
		}
		if first, ok := firstTimed[e.Metadata["file"]]; !ok || off < first {
			firstTimed[e.Metadata["file"]] = off
		}
	}
	seen := map[string]last{}
	for _, e := range es {
		file := e.Metadata["file"]
		if regressed[file] {
			continue
		}
		switch e.Stream["event_type"] {
		case "file_summary":
			continue
		case "truncated_tail":
			if prev, ok := seen[file]; ok && !e.Time.After(prev.at.Time) {
				return fmt.Errorf("the truncated_tail marker of %s (%s) is not after its last line (%s)", file, e.Time, prev.at.Time)
			}
			continue
		}
		if e.Metadata["byte_offset"] == "" {
			continue // a format's side entry
		}
		off, err := strconv.ParseInt(e.Metadata["byte_offset"], 10, 64)
		if err != nil {
			return fmt.Errorf("entry with byte_offset %q: %.100q", e.Metadata["byte_offset"], e.Line)
		}
		if first, ok := firstTimed[file]; (!ok || off < first) && strings.Contains(e.Metadata["annotations"], "timestamp_fallback") {
			continue
		}
		if prev, ok := seen[file]; ok && off < prev.offset && e.Time.After(prev.at.Time) {
			return fmt.Errorf("%s: offset %d shown after offset %d", file, off, prev.offset)
		}
		if prev, ok := seen[file]; !ok || off > prev.offset {
			seen[file] = last{offset: off, at: e}
		}
	}
	return nil
}

// llmCalls: each LLM response, "step N · model · P prompt (R cache read)
// (W cache write) + C completion tokens · finish_reason · $cost · ⚠
// annotations" (the step where the line has one, the model where known),
// with its cost metadata.
func (w *world) llmCalls(sc scenario) func([]lokiquery.Entry) error {
	wants := w.journalWants(sc, hasRole("llm_response"), func(f *fact, e lokiquery.Entry) error {
		line := suffixed(prefixed("step ", stepOf(f)), " · ") + suffixed(f.line.Model, " · ") + usageText(f.line)
		if r := f.str("finish_reason"); r != "" {
			line += " · " + r
		}
		if err := checkCost(f, e); err != nil {
			return err
		}
		if f.costModel != "" {
			line += " · $" + e.Metadata["cost_usd"]
		}
		if len(f.kinds) > 0 {
			line += " · ⚠ " + e.Metadata["annotations"]
		}
		return firstErr(sameKinds(e, f), lineIs(e, line), metaIs(e, "duration_ms", f.str("duration_ms")), metaIs(e, "model", f.line.Model))
	})
	return func(es []lokiquery.Entry) error { return matchEntries(es, wants) }
}

// usageText is how the LLM calls panel shows the tokens a response counts.
func usageText(l sample.Line) string {
	if !l.Counted {
		return "no usage counted"
	}
	s := strconv.FormatInt(l.PromptTokens, 10) + " prompt"
	if l.CacheReadTokens > 0 {
		s += " (" + strconv.FormatInt(l.CacheReadTokens, 10) + " cache read)"
	}
	if l.CacheWriteTokens > 0 {
		s += " (" + strconv.FormatInt(l.CacheWriteTokens, 10) + " cache write)"
	}
	return s + " + " + strconv.FormatInt(l.CompletionTokens, 10) + " completion tokens"
}

// stepOf is the step_index a response ships: the step it answers (Cortex
// Plane's step_index, a Codelia invocation's seq).
func stepOf(f *fact) string {
	if f.format == codeliaDir {
		return seqText(f)
	}
	return f.str("step_index")
}

// checkCost: cost_usd and cost_model are there exactly for priced
// responses, and cost_usd is the price table's dollars.
func checkCost(f *fact, e lokiquery.Entry) error {
	got, model := e.Metadata["cost_usd"], e.Metadata["cost_model"]
	if f.costModel == "" {
		if got != "" || model != "" {
			return fmt.Errorf("cost_usd %q / cost_model %q on an unpriced response", got, model)
		}
		return nil
	}
	v, err := strconv.ParseFloat(got, 64)
	if err != nil || model != f.costModel || !near(v, f.cost, 1e-9) {
		return fmt.Errorf("cost_usd %q (%s), want %v (%s)", got, model, f.cost, f.costModel)
	}
	return nil
}

// metaIs checks a structured metadata or parsed label.
func metaIs(e lokiquery.Entry, name, want string) error {
	if got := e.Metadata[name]; got != want {
		return fmt.Errorf("%s %q, want %q", name, got, want)
	}
	return nil
}

// callsTool: a tool call or result, or an LLM response naming the tool
// it calls (a Claude Code tool_use line).
func callsTool(f *fact) bool {
	return hasRole("tool_call", "tool_result")(f) || f.role == "llm_response" && f.toolName != ""
}

// toolCalls: "tool called: input" and "tool returned/FAILED code after N
// ms: result" (the Cortex Plane parts when the line has them), failures
// at level error.
func (w *world) toolCalls(sc scenario) func([]lokiquery.Entry) error {
	wants := w.journalWants(sc, callsTool, func(f *fact, e lokiquery.Entry) error {
		name, invocation := f.toolName, f.invocation
		line := name + " "
		level := "info"
		switch {
		case f.role != "tool_result":
			line += "called" + prefixed(": ", f.str("input_summary"))
		case f.str("success") == "false":
			line += "FAILED " + f.str("error_code")
			level = "error"
		default:
			line += "returned"
		}
		if f.role == "tool_result" {
			line += prefixed(" after ", f.str("duration_ms"))
			if f.str("duration_ms") != "" {
				line += " ms"
			}
			line += prefixed(": ", f.str("result_summary"))
		}
		return firstErr(lineIs(e, line), levelIs(e, level), metaIs(e, "invocation_id", invocation), metaIs(e, "tool_name", name))
	})
	return func(es []lokiquery.Entry) error { return matchEntries(es, wants) }
}

// prefixed is prefix+s, or "" when s is empty.
func prefixed(prefix, s string) string {
	if s == "" {
		return ""
	}
	return prefix + s
}

// suffixed is s+suffix, or "" when s is empty.
func suffixed(s, suffix string) string {
	if s == "" {
		return ""
	}
	return s + suffix
}

// milestoneRoles are the roles of the "Starts, status, checkpoints,
// errors and ends" panel.
var milestoneRoles = []string{"session_start", "status", "checkpoint", "error", "session_end"}

// milestones: "type step N agent A on P code: message checkpoint C
// approval requested: X old → new · state (end reason)", each part when
// the line has it; errors at level error, approvals and ends other than
// completed at warning.
func (w *world) milestones(sc scenario) func([]lokiquery.Entry) error {
	wants := w.journalWants(sc, hasRole(milestoneRoles...), func(f *fact, e lokiquery.Entry) error {
		line := f.eventType + prefixed(" step ", f.str("step_index"))
		if f.role == "session_start" {
			line += prefixed(" agent ", f.file.AgentID) + prefixed(" on ", f.file.Pod)
		}
		if c := f.str("error_code"); c != "" {
			line += " " + c + ": " + f.str("message")
		}
		line += prefixed(" checkpoint ", f.str("checkpoint_id")) + prefixed(" approval requested: ", f.str("action"))
		if n := f.str("new_status"); n != "" {
			line += " " + f.str("old_status") + " → " + n
		}
		line += prefixed(" · ", f.line.State)
		if r := cmp.Or(f.endReason, f.str("reason")); r != "" {
			line += " (" + r + ")"
		}
		level := "info"
		switch {
		case f.role == "error":
			level = "error"
		case f.str("action") != "" || (f.endReason != "" && f.endReason != "completed"):
			level = "warning"
		}
		return firstErr(lineIs(e, line), levelIs(e, level))
	})
	return func(es []lokiquery.Entry) error { return matchEntries(es, wants) }
}

// fileVerdicts: one summary per file, "level (severity) · N lines, C
// corrupt, G gaps, ended R · path".
func (w *world) fileVerdicts(sc scenario) func([]lokiquery.Entry) error {
	var wants []entryWant
	for _, f := range w.files(sc.fileInJob) {
		total := len(f.Lines)
		if len(f.PartialTail) > 0 {
			total++
		}
		sev := severity(f)
		end := "not ended"
		if f.EndReason != "" {
			end = "ended " + f.EndReason
		}
		rest := fmt.Sprintf(" · %d lines, %d corrupt, %d gaps, %s · %s", total, corruptCount(f), gapCount(f), end, w.path(f))
		if sev != "" {
			rest = " (" + sev + ")" + rest
		}
		wants = append(wants, entryWant{place: w.synthPlace("file_summary", f), check: func(e lokiquery.Entry) error {
			if !strings.HasSuffix(e.Line, rest) {
				return fmt.Errorf("line %q, want it to end with %q", e.Line, rest)
			}
			return nil
		}})
	}
	return func(es []lokiquery.Entry) error { return matchEntries(es, wants) }
}
