// Package kinds lists every format's generator, one line each, in the
// order the CLI shows them: demo, simulate and the tests that need every
// format's journals loop over All.
package kinds

import (
	"github.com/journalship/journalship/internal/sample"
	"github.com/journalship/journalship/internal/sample/claudecode"
	"github.com/journalship/journalship/internal/sample/codelia"
	"github.com/journalship/journalship/internal/sample/codex"
	"github.com/journalship/journalship/internal/sample/cortex"
	"github.com/journalship/journalship/internal/sample/gosession"
	"github.com/journalship/journalship/internal/sample/orbitmesh"
)

// All returns the generators' Kinds.
func All() []sample.Kind {
	return []sample.Kind{
		cortex.Kind,
		codelia.Kind,
		orbitmesh.Kind,
		claudecode.Kind,
		codex.Kind,
		gosession.Kind,
	}
}

// Lookup returns the Kind of the format named name.
func Lookup(name string) (sample.Kind, bool) {
	for _, k := range All() {
		if k.Format == name {
			return k, true
		}
	}
	return sample.Kind{}, false
}
