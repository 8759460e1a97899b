package grafana

import (
	"cmp"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/journalship/journalship/internal/sample"
	"github.com/journalship/journalship/internal/sample/claudecode"
	"github.com/journalship/journalship/internal/sample/codelia"
	"github.com/journalship/journalship/internal/sample/codex"
	"github.com/journalship/journalship/internal/sample/cortex"
	"github.com/journalship/journalship/internal/sample/gosession"
	"github.com/journalship/journalship/internal/sample/kinds"
	"github.com/journalship/journalship/internal/sample/orbitmesh"
)

// The formats the tests name, as the format label names them: what a
// format's lines ship is written out per format (roles_test.go,
// truth_test.go), and Cortex Plane's jobs are the retention sweep's and
// the audit trail's. The world holds every format of kinds.All(), each
// corpus under the node's directory named by its format label, where
// the format is told by its path.
const (
	cortexDir    = cortex.FormatName     // Cortex Plane: <root>/cortex/<job_id>/session_<ts>_<pod>.jsonl
	codeliaDir   = codelia.FormatName    // Codelia: <root>/codelia/sessions/YYYY/MM/DD/<run_id>.jsonl
	orbitmeshDir = orbitmesh.FormatName  // OrbitMesh: <root>/orbitmesh/sessions/<session_id>.messages.jsonl
	claudeDir    = claudecode.FormatName // Claude Code: <root>/claude-code/<project>/<session>.jsonl, <session>/subagents/agent-<agent>.jsonl
	codexDir     = codex.FormatName      // Codex CLI: <root>/codex/sessions/YYYY/MM/DD/rollout-<time>-<session>.jsonl
	goSessionDir = gosession.FormatName  // Go pkg/session: <root>/go-session/<session_id>/messages.jsonl
)

// formats are the format label values the world holds: every Kind's,
// sorted.
var formats = func() []string {
	var out []string
	for _, k := range kinds.All() {
		out = append(out, k.Format)
	}
	slices.Sort(out)
	return out
}()

// worldUnits is how many units (jobs, runs, sessions) a format's corpus
// has in the world, and its seed: Cortex Plane's twelve jobs (the audit
// trail's six, the retention sweep's quarters), every other format's
// fault units and one clean unit.
func worldUnits(k sample.Kind) (seed int64, n int) {
	if k.Format == cortexDir {
		return corpusSeed, corpusJobs
	}
	return runsSeed, k.MinFaults + 1
}

// generateCorpora generates every Kind's corpus from start and joins them
// into one whose paths are relative to the node's root, in the order of
// kinds.All() (each corpus in its own order: Cortex Plane job by job,
// Claude Code session by session, each main transcript before its
// subagents').
func generateCorpora(start time.Time) (*sample.Corpus, error) {
	out := &sample.Corpus{}
	for _, k := range kinds.All() {
		seed, n := worldUnits(k)
		c, err := k.Generate(seed, n, start, true)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k.Format, err)
		}
		dir := k.Format
		for _, f := range c.Files {
			if f.LastTime().IsZero() {
				// A file whose lines have no times of their own (a
				// captured stream-json run, a Go pkg/session
				// transcript.jsonl) lands when shipped, hours after the
				// journals beside it in their streams, or is never idle
				// for the finalizer. The dashboards' timelines are the
				// journals' own.
				continue
			}
			f.Rel = dir + "/" + f.Rel
			out.Files = append(out.Files, f)
		}
		for _, s := range c.Side {
			s.Rel = dir + "/" + s.Rel
			out.Side = append(out.Side, s)
		}
	}
	return out, nil
}

// corpusSpan is the time from start to the corpus's last line.
func corpusSpan(c *sample.Corpus, start time.Time) time.Duration {
	var last time.Time
	for _, f := range c.Files {
		if t := f.LastTime(); t.After(last) {
			last = t
		}
	}
	return last.Sub(start)
}

// fileUnit is what the dashboards call a file's job: its job_id (Cortex
// Plane), else its session_id (a Codelia session's runs, an OrbitMesh
// session, a Claude Code session's transcripts), else its run_id (a
// Codelia run without a session).
func fileUnit(f *sample.File) string { return cmp.Or(f.JobID, f.SessionID, f.RunID) }

// lineUnit is a line's job: as its file's, with the run_id the line
// states when it names another run than its file's.
func lineUnit(f *sample.File, l sample.Line) string {
	return cmp.Or(f.JobID, f.SessionID, l.RunID, f.RunID)
}

// synthSession is the session_id of the finalizer's entries of f (its
// truncated_tail marker and file_summary): the session its session start
// line states, else its path's (an OrbitMesh log has no session start
// line, nor has a Claude Code transcript). A Claude Code 2.0 agent file,
// <project>/agent-<agent>.jsonl, names no session in its path: its
// entries have none.
func synthSession(f *sample.File) string {
	if legacyAgentFile(f) {
		return ""
	}
	return f.SessionID
}

// synthRun is the run_id of the finalizer's entries of f: the one its path
// names (a Codelia file's name, a Claude Code subagent's or agent file's
// agent).
func synthRun(f *sample.File) string {
	switch f.Format {
	case codeliaDir:
		return strings.TrimSuffix(path.Base(f.Rel), ".jsonl")
	case claudeDir:
		return f.AgentID
	}
	return ""
}

// legacyAgentFile: a Claude Code subagent transcript as a 2.0 CLI wrote
// it, beside the main transcripts (<project>/agent-<agent>.jsonl).
func legacyAgentFile(f *sample.File) bool {
	return f.Format == claudeDir && f.AgentID != "" && path.Base(path.Dir(f.Rel)) != "subagents"
}

// synthUnit is the job of the finalizer's entries of f.
func synthUnit(f *sample.File) string { return cmp.Or(f.JobID, synthSession(f), synthRun(f)) }

// runIDOf is the run_id a line ships: none in Cortex Plane, the run a
// Codelia record states (its file's unless another), the run_id field of
// an OrbitMesh record of part B (docs/formats/orbitmesh.md; the runtime's
// records carry none).
func runIDOf(f *fact) string {
	switch f.format {
	case codeliaDir:
		return cmp.Or(f.line.RunID, f.file.RunID)
	case orbitmeshDir:
		if f.fields != nil && runtimeShaped(f.fields) {
			return ""
		}
		return f.str("run_id")
	}
	return ""
}

// assign gives every file its tenant and node: the jobs (units) of each
// format alternate between tenant acme on node-a and the default tenant
// on node-b, all the files of a unit together.
func (w *world) assign() {
	index := map[string]int{} // format|unit → its index in its format
	count := map[string]int{} // format → units seen
	for _, f := range w.corpus.Files {
		k := key(f.Format, fileUnit(&f))
		i, seen := index[k]
		if !seen {
			i = count[f.Format]
			index[k], count[f.Format] = i, i+1
		}
		w.tenants[f.Rel], w.nodes[f.Rel] = tenantAcme, "node-a"
		if i%2 == 1 {
			w.tenants[f.Rel], w.nodes[f.Rel] = tenantDefault, "node-b"
		}
	}
}

// billOwners tells, for each response the corpus bills in several
// journals (sample.Line.Bill), the journal that counts it: the first to
// ship it. The node ships tenant acme's journals, then the default
// tenant's, each tenant's in the order of their paths (backfill sorts
// them), and its two instances share one ledger, where the first journal
// to ship a response claims it.
func (w *world) billOwners() map[string]string {
	order := w.files(func(f *sample.File) bool {
		return slices.ContainsFunc(f.Lines, func(l sample.Line) bool { return l.Bill != "" })
	})
	rank := map[string]int{tenantAcme: 0, tenantDefault: 1}
	sort.SliceStable(order, func(i, j int) bool {
		a, b := order[i], order[j]
		if ra, rb := rank[w.tenantOf(a)], rank[w.tenantOf(b)]; ra != rb {
			return ra < rb
		}
		return w.path(a) < w.path(b)
	})
	out := map[string]string{}
	for _, f := range order {
		for _, l := range f.Lines {
			if _, claimed := out[l.Bill]; l.Bill != "" && !claimed {
				out[l.Bill] = f.Rel
			}
		}
	}
	return out
}

// units are the jobs of a format's files (Cortex Plane jobs, Codelia
// sessions or runs, OrbitMesh and Claude Code sessions), in order.
func (w *world) units(format string) []string {
	var out []string
	for i := range w.corpus.Files {
		if f := &w.corpus.Files[i]; f.Format == format && !slices.Contains(out, fileUnit(f)) {
			out = append(out, fileUnit(f))
		}
	}
	return out
}
