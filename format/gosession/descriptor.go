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
	End:     format.EndBeside,
	Unit:    format.UnitSession,
	Deploy: format.Deploy{
		Root:  "/data/go-session",
		Paths: []string{"*/messages.jsonl", "*/transcript.jsonl"},
		About: "the root is the store's base directory (NewStore(baseDir); Goat's usual one is inside " +
			"Claude Code's projects directory, <project>/sessions/: mount that base at " +
			"/data/go-session), one directory per session: <root>/<session_id>/messages.jsonl " +
			"and transcript.jsonl. Not metadata.json, checkpoints/ nor the *.lock files: " +
			"the plugin reads metadata.json itself, and the finalizer ships the session's " +
			"summary and checkpoints from it.",
		// In the session's directory: metadata.json (rewritten in place),
		// a checkpoint's manifest and blob, the flock files.
		NotTailed: []string{"<session_id>/metadata.json", "<session_id>/checkpoints/cp-001/manifest.json",
			"<session_id>/checkpoints/cp-001/blobs/9f86d0", "<session_id>/messages.jsonl.lock",
			"<session_id>/transcript.jsonl.lock"},
	},
}
