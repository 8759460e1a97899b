package claudecode

import "github.com/journalship/journalship/format"

// Descriptor declares the format to the registry.
var Descriptor = format.Descriptor{
	Name: Name,
	// After the others with a layout of their own: <project>/<uuid>.jsonl
	// is the least specific, so a file another format's layout also
	// claims is tried by that format first.
	Order:   40,
	Runtime: "Claude Code CLI and Agent SDK transcripts, one per session and subagent",
	Doc:     "docs/formats/claude-code.md",
	New:     func(format.Options) (format.Format, error) { return NewWith(DefaultConfig()) },
	End:     format.EndQuiet,
	Unit:    format.UnitSession,
	Deploy: format.Deploy{
		Root:  "/data/claude/projects",
		Paths: []string{"*/*.jsonl", "*/*/subagents/agent-*.jsonl"},
		About: "the root is Claude Code's projects directory, /data/claude/projects (~/.claude/projects, " +
			"or $CLAUDE_CONFIG_DIR/projects, of the user the agents run as): a session's main " +
			"transcript <root>/<project>/<session>.jsonl and its subagents' " +
			"<root>/<project>/<session>/subagents/agent-<agent>.jsonl, a pattern each " +
			"(a 2.0 CLI's subagents, <root>/<project>/agent-<agent>.jsonl, match the first). " +
			"Only the transcripts: the sidecars agent-<agent>.meta.json, tool-results/, " +
			"memory/ and sessions-index.json end otherwise, so no Exclude_Path. " +
			"A session writes no end record: the finalizer takes it as over once it is idle " +
			"and its files stay unchanged (retention's --stale-after).",
		// In the session's directory beside the main transcript: a
		// subagent's sidecar and the large tool outputs moved out of the
		// transcript; in the project directory: the sessions index and
		// the project's memory.
		NotTailed: []string{"<project>/<session>/subagents/agent-<agent>.meta.json",
			"<project>/<session>/tool-results/toolu_01.txt", "<project>/sessions-index.json",
			"<project>/memory/MEMORY.md"},
	},
}
