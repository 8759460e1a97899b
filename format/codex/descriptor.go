package codex

import "github.com/journalship/journalship/format"

// Descriptor declares the format to the registry.
var Descriptor = format.Descriptor{
	Name: Name,
	// Before Codelia: its layout (sessions/YYYY/MM/DD/*.jsonl) also
	// claims a rollout's path, and when a file's first line cannot be
	// read the first claimant takes it.
	Order:   15,
	Runtime: "OpenAI Codex CLI rollouts, one per session",
	Doc:     "docs/formats/codex.md",
	New:     func(format.Options) (format.Format, error) { return NewWith(DefaultConfig()) },
}
