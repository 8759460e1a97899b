package claudecode

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/journalship/journalship/internal/sample"
)

// CLI versions by era: the 2.0 line (subagents in agent-<id>.jsonl
// beside the main files, no progress lines), 2.1 before 2.1.97
// (streaming usage snapshots), 2.1.97 and later (final usage on every
// line).
var (
	versionsLegacy = []string{"2.0.55", "2.0.64", "2.0.76"}
	versionsOld    = []string{"2.1.30", "2.1.59", "2.1.72", "2.1.90", "2.1.96"}
	versionsNew    = []string{"2.1.98", "2.1.110", "2.1.126", "2.1.144"}
)

// Eras a session starts in.
const (
	eraLegacy = iota
	eraOld
	eraNew
)

// session is one Claude Code session: its main transcript and the
// subagent transcripts it starts.
type session struct {
	x         *rng
	i         int
	id        string
	th        *theme
	models    []string
	mode      cacheMode
	main      *transcript
	subs      []*transcript // subagent and legacy agent files, in creation order
	side      []sample.SideFile
	snapshots bool // file-history snapshots before prompts
	hooks     bool // a PostToolUse hook runs after edits
	edited    []string
	tasks     []task // the theme's tasks, in the order the session takes them
	turns     int    // prompts answered so far
}

// newSession starts session i at at, in era, with model.
func newSession(x *rng, i int, era int, model string, models []string, at time.Time) *session {
	s := &session{x: x, i: i, id: x.UUIDv4(), th: &themes[x.Intn(len(themes))], models: models}
	s.mode = []cacheMode{cache5m, cache1h, cacheMixed}[x.Weighted(60, 25, 15)]
	var version string
	switch era {
	case eraLegacy:
		version, s.mode = pick(x, versionsLegacy), cache5m // the 2.0 line writes no 1 h split
	case eraOld:
		version = pick(x, versionsOld)
	default:
		version = pick(x, versionsNew)
	}
	s.snapshots, s.hooks = x.Chance(0.6), x.Chance(0.3)
	s.tasks = slices.Clone(s.th.tasks)
	for k := len(s.tasks) - 1; k > 0; k-- {
		j := x.Intn(k + 1)
		s.tasks[k], s.tasks[j] = s.tasks[j], s.tasks[k]
	}
	s.main = &transcript{s: s, kind: kindMain, version: version, model: model, clock: at,
		ctx: newTokenCtx(x, int64(x.Between(14000, 24000)), s.mode)}
	return s
}

// task returns the session's k-th task (cycling).
func (s *session) task(k int) task { return s.tasks[k%len(s.tasks)] }

// backups is a file-history snapshot's trackedFileBackups: the files
// edited so far.
func (s *session) backups() obj {
	o := obj{}
	for i, f := range s.edited {
		o = append(o, kv{f, obj{{"backupFileName", fmt.Sprintf("%s@v%d", s.x.Chars(16, hexLow), i+1)}, {"version", i + 1},
			{"backupTime", stamp(s.main.clock)}}})
	}
	return o
}

// subagent starts a subagent transcript of the session at at.
func (s *session) subagent(model string, at time.Time) *transcript {
	x := s.x
	kind := kindSubagent
	if s.main.legacyCLI() {
		kind = kindLegacy
	}
	id := x.agentID()
	t := &transcript{s: s, kind: kind, agentID: id, fileAgent: id, sidechain: true, version: s.main.version,
		model: model, clock: at, ctx: newTokenCtx(x, int64(x.Between(5000, 11000)), s.mode)}
	s.subs = append(s.subs, t)
	return t
}

// subModel is the model of an agent of type typ: Explore runs on Haiku
// when the session's models include it.
func (s *session) subModel(typ string) string {
	if typ == "Explore" {
		for _, m := range s.models {
			if strings.Contains(m, "haiku") {
				return m
			}
		}
	}
	return s.main.model
}

// meta writes a subagent's sidecar (<agent>.meta.json).
func (s *session) metaFile(t *transcript, agentType, desc string) {
	data, _ := sample.Marshal(obj{{"agentType", agentType}, {"description", desc}})
	s.side = append(s.side, sample.SideFile{Rel: s.rel(t, ".meta.json"), Data: data})
}

// rel is the path of transcript t under the projects directory, with
// suffix ext.
func (s *session) rel(t *transcript, ext string) string {
	p := project(s.th.cwd)
	switch t.kind {
	case kindSubagent:
		return p + "/" + s.id + "/subagents/agent-" + t.fileAgent + ext
	case kindLegacy:
		return p + "/agent-" + t.fileAgent + ext
	}
	return p + "/" + s.id + ext
}
