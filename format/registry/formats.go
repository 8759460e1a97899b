package registry

import (
	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/format/claudecode"
	"github.com/journalship/journalship/format/codelia"
	"github.com/journalship/journalship/format/codex"
	"github.com/journalship/journalship/format/cortex"
	"github.com/journalship/journalship/format/gosession"
	"github.com/journalship/journalship/format/orbitmesh"
)

// registered are the formats journalship knows, one line each; their
// descriptors' Order, not this list, sets the detection order.
var registered = []format.Descriptor{
	cortex.Descriptor,
	codex.Descriptor,
	codelia.Descriptor,
	orbitmesh.Descriptor,
	claudecode.Descriptor,
	gosession.Descriptor,
}
