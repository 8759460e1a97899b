package codelia

import "github.com/journalship/journalship/format"

// Descriptor declares the format to the registry.
var Descriptor = format.Descriptor{
	Name:    Name,
	Order:   20,
	Runtime: "Codelia run journals, one per run of a session",
	Doc:     "docs/formats/codelia.md",
	New:     func(format.Options) (format.Format, error) { return NewWith(DefaultConfig()) },
}
