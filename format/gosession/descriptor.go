package gosession

import "github.com/journalship/journalship/format"

// Descriptor declares the format to the registry.
var Descriptor = format.Descriptor{
	Name: Name,
	// After Claude Code: its names (messages.jsonl, transcript.jsonl) are
	// exact and Claude Code refuses them, but its detection by content
	// also accepts a Claude Code stream-json capture, which Claude Code's
	// own detection must see first.
	Order:   50,
	Runtime: "Go pkg/session stores (Goat): a session directory's messages and transcript",
	Doc:     "docs/formats/go-session.md",
	New:     func(format.Options) (format.Format, error) { return NewWith(DefaultConfig()) },
}
