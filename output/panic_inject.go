//go:build journalship_panictest

package output

import (
	"bytes"

	"github.com/journalship/journalship/chunk"
)

// This file is only in a plugin built with -tags journalship_panictest,
// for the end-to-end test of panic handling through a C host (e2e's
// TestPanic*): never in a released build.

// PanicTestMarker, in a record's line, makes Flush panic on that record;
// as the Node_Name setting, it makes NewInstance panic.
const PanicTestMarker = "JOURNALSHIP-PANIC-TEST-MARKER"

func init() {
	recordHook = func(r *chunk.Record) {
		if bytes.Contains(r.Line, []byte(PanicTestMarker)) {
			panic("journalship_panictest: a record carries " + PanicTestMarker)
		}
	}
	initHook = func(get Getter) {
		if get("Node_Name") == PanicTestMarker {
			panic("journalship_panictest: Node_Name is " + PanicTestMarker)
		}
	}
}
