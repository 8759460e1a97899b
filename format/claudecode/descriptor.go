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
}
