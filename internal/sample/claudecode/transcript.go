package claudecode

import (
	"strings"
	"time"
)

// tsLayout is the lines' timestamp: RFC 3339 UTC with milliseconds.
const tsLayout = "2006-01-02T15:04:05.000Z"

func stamp(t time.Time) string { return t.UTC().Format(tsLayout) }

// transcript builds one file the way Claude Code appends it: a session's
// main transcript or one of its subagents'.
type transcript struct {
	s         *session
	kind      fileKind
	agentID   string // the agentId its lines carry (subagent and legacy files)
	fileAgent string // the agent id of the file name
	sidechain bool
	version   string
	model     string
	recs      []*rec
	last      string    // the last conversation line's uuid ("" before any)
	clock     time.Time // the time of the next line
	ctx       tokenCtx

	// How the next conversation line links: a root (parentUuid null),
	// under another parent than last, or a compact boundary naming last
	// as its logical parent.
	nextRoot    bool
	nextParent  string
	nextLogical bool
}

// old reports whether the CLI writes streaming snapshots of the usage
// (before 2.1.97).
func (t *transcript) old() bool { return versionBefore(t.version, 2, 1, 97) }

// legacyCLI reports a CLI of the 2.0 line: no progress lines, subagents
// in <project>/agent-<agent>.jsonl.
func (t *transcript) legacyCLI() bool { return versionBefore(t.version, 2, 1, 0) }

// attachments reports whether the CLI writes attachment lines (2.1.97+).
func (t *transcript) attachments() bool { return !t.old() }

func (t *transcript) tick(d time.Duration) { t.clock = t.clock.Add(d) }

// at moves the clock to at if that is later.
func (t *transcript) at(at time.Time) {
	if at.After(t.clock) {
		t.clock = at
	}
}

// line appends a conversation line of type typ: the envelope, then
// fields, uuid and timestamp, then tail.
func (t *transcript) line(typ string, fields, tail obj) *rec {
	r := &rec{typ: typ, at: t.clock, conv: true, session: t.s.id, agent: t.agentID, sidechain: t.sidechain}
	switch {
	case t.nextRoot:
	case t.nextParent != "":
		r.parent = t.nextParent
	default:
		r.parent = t.last
	}
	var o obj
	if r.parent == "" {
		o = obj{{"parentUuid", nil}}
	} else {
		o = obj{{"parentUuid", r.parent}}
	}
	if t.nextLogical {
		r.logical = t.last
		o = append(o, kv{"logicalParentUuid", t.last})
	}
	t.nextRoot, t.nextParent, t.nextLogical = false, "", false
	o = append(o, kv{"isSidechain", t.sidechain}, kv{"userType", "external"}, kv{"cwd", t.s.th.cwd},
		kv{"sessionId", t.s.id}, kv{"version", t.version}, kv{"gitBranch", t.s.th.branch})
	if t.agentID != "" {
		o = append(o, kv{"agentId", t.agentID})
	}
	o = append(o, kv{"type", typ})
	o = append(o, fields...)
	r.uuid = t.s.x.UUIDv4()
	o = append(o, kv{"uuid", r.uuid}, kv{"timestamp", stamp(t.clock)})
	r.b = append(o, tail...)
	t.recs = append(t.recs, r)
	t.last = r.uuid
	return r
}

// meta appends a bookkeeping line (no uuid, not in the conversation).
func (t *transcript) meta(typ string, o obj) *rec {
	r := &rec{typ: typ, at: t.clock, b: o}
	for _, m := range o {
		if m.K == "sessionId" {
			r.session, _ = m.V.(string)
		}
	}
	t.recs = append(t.recs, r)
	return r
}

// prompt appends a user line whose content is text, of kind k.
func (t *transcript) prompt(text string, k userKind) *rec {
	msg := obj{{"role", "user"}, {"content", text}}
	if k == userInterrupt {
		msg = obj{{"role", "user"}, {"content", []obj{{{"type", "text"}, {"text", text}}}}}
	}
	fields := obj{{"message", msg}}
	switch k {
	case userMeta:
		fields = append(fields, kv{"isMeta", true})
	case userCompactSummary:
		fields = append(fields, kv{"isCompactSummary", true}, kv{"isVisibleInTranscriptOnly", true})
	}
	var tail obj
	if k == userPrompt && !t.old() {
		tail = obj{{"permissionMode", "default"}}
	}
	r := t.line(TypeUser, fields, tail)
	r.user = k
	if k == userPrompt {
		t.ctx.add(int64(len(text)/4 + t.s.x.Between(10, 60)))
	}
	return r
}

// ask is a user prompt: a file-history snapshot first when the session
// edits files (named after the prompt's uuid, drawn by the line), then
// the prompt.
func (t *transcript) ask(text string) *rec {
	t.tick(t.s.x.Millis(200, 900))
	var snap *rec
	if t.kind == kindMain && t.s.snapshots && !t.sidechain {
		snap = t.meta(TypeFileHistorySnapshot, nil)
	}
	r := t.prompt(text, userPrompt)
	if snap != nil {
		snap.b = obj{{"type", TypeFileHistorySnapshot}, {"messageId", r.uuid},
			{"snapshot", obj{{"messageId", r.uuid}, {"trackedFileBackups", t.s.backups()}, {"timestamp", stamp(t.clock)}}},
			{"isSnapshotUpdate", false}}
	}
	return r
}

// versionBefore reports whether version v (major.minor.patch) is below
// major.minor.patch.
func versionBefore(v string, major, minor, patch int) bool {
	var n [3]int
	for i, p := range strings.SplitN(v, ".", 3) {
		for _, c := range p {
			if c < '0' || c > '9' {
				break
			}
			n[i] = n[i]*10 + int(c-'0')
		}
	}
	switch {
	case n[0] != major:
		return n[0] < major
	case n[1] != minor:
		return n[1] < minor
	}
	return n[2] < patch
}
