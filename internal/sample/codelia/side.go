package codelia

import (
	"github.com/journalship/journalship/internal/sample"
)

// snapshots returns the session state snapshots,
// sessions/state/<session_id>.json, as the runtime leaves them after each
// session's last run: rewritten in place, never appended to, not journals.
func (g *gen) snapshots() ([]sample.SideFile, error) {
	out := make([]sample.SideFile, 0, len(g.sessions))
	for _, s := range g.sessions {
		if s.runs == 0 {
			continue
		}
		messages := append([]obj{{{"role", "system"}, {"content", s.host.system}}}, s.history...)
		doc := obj{{"schema_version", 1}, {"session_id", s.id}, {"updated_at", s.updated.UTC().Format(tsLayout)},
			{"run_id", s.lastRun}, {"invoke_seq", s.invokeSeq}, {"messages", messages}}
		data, err := sample.MarshalIndent(doc)
		if err != nil {
			return nil, err
		}
		out = append(out, sample.SideFile{Rel: "sessions/state/" + s.id + ".json", Data: data})
	}
	return out, nil
}
