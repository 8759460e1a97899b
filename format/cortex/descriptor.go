package cortex

import "github.com/journalship/journalship/format"

// Descriptor declares the format to the registry.
var Descriptor = format.Descriptor{
	Name: Name,
	// First: its layout (<job_id>/session_<ts>_<pod>.jsonl) is the most
	// specific of all.
	Order:   10,
	Runtime: "Cortex Plane session buffers, one per agent session of a job",
	Doc:     "docs/formats/cortex-plane.md",
	Settings: []format.Setting{{Name: "Known_Schema_Versions", Default: "1",
		Help: "buffer_schema_version values judged strictly; others best-effort."}},
	New: func(o format.Options) (format.Format, error) {
		versions, err := format.ParseVersions("Known_Schema_Versions", o.Settings["Known_Schema_Versions"])
		if err != nil {
			return nil, err
		}
		return NewWith(Config{KnownSchemaVersions: versions})
	},
	Unit: format.UnitDirectory,
	Deploy: format.Deploy{
		Root:  "/data/sessions",
		Paths: []string{"*/*.jsonl"},
		// The first input's since before the others had one: kept, so
		// that nodes keep their offsets.
		DB: "tail.db",
		About: "<root>/<job_id>/session_<ts>_<pod>.jsonl with root /data/sessions, " +
			"the root the retention agent sweeps (journalship retention --root).",
	},
}
