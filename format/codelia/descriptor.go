package codelia

import "github.com/journalship/journalship/format"

// Descriptor declares the format to the registry.
var Descriptor = format.Descriptor{
	Name:    Name,
	Order:   20,
	Runtime: "Codelia run journals, one per run of a session",
	Doc:     "docs/formats/codelia.md",
	New:     func(format.Options) (format.Format, error) { return NewWith(DefaultConfig()) },
	Deploy: format.Deploy{
		Root:  "/data/codelia",
		Paths: []string{"sessions/[0-9][0-9][0-9][0-9]/[0-9][0-9]/[0-9][0-9]/*.jsonl"},
		About: "<root>/sessions/YYYY/MM/DD/<run_id>.jsonl with root /data/codelia " +
			"(Codelia's ~/.codelia, on the node). The date directories are matched as digits, " +
			"so sessions/state/ (resume snapshots rewritten in place, not journals) is never opened, " +
			"let alone tailed: with sessions/*/... an unreadable state/ would make tail's glob " +
			"give up the whole Path (GLOB_ERR) and no run record would be read.",
		NotTailed: []string{"sessions/state/<session_id>.json"},
	},
}
