package orbitmesh

import "github.com/journalship/journalship/format"

// Descriptor declares the format to the registry.
var Descriptor = format.Descriptor{
	Name:    Name,
	Order:   30,
	Runtime: "OrbitMesh session message logs, one per session",
	Doc:     "docs/formats/orbitmesh.md",
	New:     func(o format.Options) (format.Format, error) { return NewWith(Config{Now: o.Now}) },
}
