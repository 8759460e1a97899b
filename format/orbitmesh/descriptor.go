package orbitmesh

import "github.com/journalship/journalship/format"

// Descriptor declares the format to the registry.
var Descriptor = format.Descriptor{
	Name:    Name,
	Order:   30,
	Runtime: "OrbitMesh session message logs, one per session",
	Doc:     "docs/formats/orbitmesh.md",
	New:     func(o format.Options) (format.Format, error) { return NewWith(Config{Now: o.Now}) },
	End:     format.EndBeside,
	Deploy: format.Deploy{
		Root:  "/data/orbitmesh",
		Paths: []string{"sessions/*.messages.jsonl"},
		About: "<root>/sessions/<session_id>.messages.jsonl with root /data/orbitmesh. " +
			"Only the logs: the snapshot <session_id>.json and the token index " +
			"<session_id>.tokens.json beside each, the attempts/ and resume_tokens/ " +
			"directories are JSON documents rewritten in place, which the plugin reads " +
			"(never tails) for the session's status.",
		NotTailed: []string{"sessions/<session_id>.json", "sessions/<session_id>.tokens.json",
			"sessions/attempts/<session_id>/1.json", "sessions/resume_tokens/rt_1.json"},
	},
}
