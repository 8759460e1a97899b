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
	End:     format.EndQuiet,
	Deploy: format.Deploy{
		Root: "/data/codex",
		// Not archived_sessions/: codex archive moves a rollout there, and
		// the ledger knows a journal by its path, so tailing both would
		// ship an archived rollout a second time (a backfill ships them:
		// journalship ship <root>/archived_sessions).
		Paths: []string{"sessions/[0-9][0-9][0-9][0-9]/[0-9][0-9]/[0-9][0-9]/rollout-*.jsonl",
			"sessions/rollout-*.jsonl"},
		About: "<root>/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl with root /data/codex " +
			"(Codex's home, $CODEX_HOME or ~/.codex, on the node) and a 0.7 CLI's " +
			"<root>/sessions/rollout-<time>-<uuid>.jsonl, a pattern each. Not archived_sessions/: " +
			"codex archive moves a rollout there, already shipped from sessions/, and a journal is " +
			"known by its path. Only the rollouts: the prompt history history.jsonl and the thread " +
			"index session_index.jsonl (not journals: the format refuses them), config.toml, " +
			"auth.json (credentials), the *.sqlite files, log/ and a rollout compressed to " +
			".jsonl.zst are never read. A session writes no end record: the finalizer takes it " +
			"as over once it is idle and its file stays unchanged (retention's --stale-after).",
		NotTailed: []string{"history.jsonl", "session_index.jsonl", "config.toml", "auth.json",
			"log/codex-tui.log", "state_5.sqlite", "archived_sessions/rollout-YYYY-MM-DDThh-mm-ss-<session>.jsonl",
			"sessions/YYYY/MM/DD/rollout-YYYY-MM-DDThh-mm-ss-<session>.jsonl.zst"},
	},
}
