package grafana

import (
	"regexp"
	"slices"

	"github.com/journalship/journalship/internal/sample"
)

// Helpers computing expectations from the world's facts.

// job is the scenario's selected job.
func (sc scenario) job() string { return sc.vars["job"][0] }

// sessionOK: the session matches the Session variable (a regex, anchored
// as LogQL matchers are).
func (sc scenario) sessionOK(id string) bool {
	return regexp.MustCompile("^(?:" + sc.vars["session"][0] + ")$").MatchString(id)
}

// selected: value is among the variable's selection (nil = All).
func (sc scenario) selected(name, value string) bool {
	vals := sc.vars[name]
	return vals == nil || slices.Contains(vals, value)
}

// formatOK: the line's format is among the Format selection.
func (sc scenario) formatOK(f *fact) bool { return sc.selected("format", f.format) }

// fileFormatOK is formatOK for files.
func (sc scenario) fileFormatOK(f *sample.File) bool { return sc.selected("format", f.Format) }

// inJob: the line belongs to the scenario's job and session selection, in
// a selected format.
func (sc scenario) inJob(f *fact) bool {
	return f.unit == sc.job() && sc.sessionOK(f.file.SessionID) && sc.formatOK(f)
}

// fileInJob is inJob for the finalizer's entries of a file.
func (sc scenario) fileInJob(f *sample.File) bool {
	return synthUnit(f) == sc.job() && sc.sessionOK(synthSession(f)) && sc.fileFormatOK(f)
}

// count counts the shipped facts pred accepts, by keyOf.
func (w *world) count(pred func(*fact) bool, keyOf func(*fact) string) map[string]float64 {
	return w.sum(pred, keyOf, func(*fact) float64 { return 1 })
}

// sum adds val over the shipped facts pred accepts, by keyOf.
func (w *world) sum(pred func(*fact) bool, keyOf func(*fact) string, val func(*fact) float64) map[string]float64 {
	out := map[string]float64{}
	for i := range w.facts {
		f := &w.facts[i]
		if f.shipped && pred(f) {
			out[keyOf(f)] += val(f)
		}
	}
	return out
}

// files are the corpus files pred accepts.
func (w *world) files(pred func(*sample.File) bool) []*sample.File {
	var out []*sample.File
	for i := range w.corpus.Files {
		if f := &w.corpus.Files[i]; pred(f) {
			out = append(out, f)
		}
	}
	return out
}

// crashedFile is the first file cut off by a crash (job 0's first session).
func (w *world) crashedFile() *sample.File {
	fs := w.files(func(f *sample.File) bool { return len(f.PartialTail) > 0 })
	return fs[0]
}

// orZero makes an empty sum a single 0, as `or vector(0)` answers.
func orZero(m map[string]float64) map[string]float64 {
	if len(m) == 0 {
		return map[string]float64{"": 0}
	}
	return m
}

func all(*fact) bool           { return true }
func none(*fact) string        { return "" }
func byJob(f *fact) string     { return f.unit }
func byModel(f *fact) string   { return f.line.Model }
func tokensIn(f *fact) float64 { return float64(f.line.PromptTokens) }
func tokensOut(f *fact) float64 {
	return float64(f.line.CompletionTokens)
}
func cacheRead(f *fact) float64  { return float64(f.line.CacheReadTokens) }
func cacheWrite(f *fact) float64 { return float64(f.line.CacheWriteTokens) }
func dollars(f *fact) float64    { return f.cost }

// hasRole selects the lines of one of the roles.
func hasRole(roles ...string) func(*fact) bool {
	return func(f *fact) bool { return slices.Contains(roles, f.role) }
}

// counted: a response whose tokens Loki must count (tokens_* metadata).
func counted(f *fact) bool { return f.line.Counted }
func priced(f *fact) bool  { return f.costModel != "" }
func and(ps ...func(*fact) bool) func(*fact) bool {
	return func(f *fact) bool {
		for _, p := range ps {
			if !p(f) {
				return false
			}
		}
		return true
	}
}

// nonZero drops the zero sums: a query filtering on a key Loki only has
// when it is not zero (the cache tokens) returns no series for them.
func nonZero(m map[string]float64) map[string]float64 {
	for k, v := range m {
		if v == 0 {
			delete(m, k)
		}
	}
	return m
}

// tokenKeys are the four token values of a counted response, in the
// order of the dashboards' targets: prompt (tokens_in), completion
// (tokens_out), cache read, cache write.
var tokenKeys = []func(*fact) float64{tokensIn, tokensOut, cacheRead, cacheWrite}
