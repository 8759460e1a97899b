// Package unknown is the fallback format for files no other format claims:
// each line is checked as strict JSON, shipped with format="unknown" and
// event_type "other" (or "corrupt"), never dropped.
package unknown

import (
	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/integrity"
)

// Name is the format label value of the fallback.
const Name = "unknown"

// Format is the fallback format.
type Format struct{}

// New returns the fallback format.
func New() Format { return Format{} }

// Name implements format.Format.
func (Format) Name() string { return Name }

// EventTypes implements format.Format: none of its own.
func (Format) EventTypes() []string { return nil }

// Annotations implements format.Format: none of its own.
func (Format) Annotations() []string { return nil }

// Layouts implements format.Format.
func (Format) Layouts() []string { return []string{"any file no other format claims"} }

// Claim implements format.Format: the fallback claims nothing itself.
func (Format) Claim(path string) (format.Path, bool) {
	return format.Path{Format: Name, Group: path}, false
}

// Sniff implements format.Format.
func (Format) Sniff([]byte) bool { return false }

// Seq implements format.Format: no sequence.
func (Format) Seq() format.SeqRule { return format.SeqRule{} }

// NewState implements format.Format: no state.
func (Format) NewState(format.Path) format.State { return nil }

// Scope implements format.Format.
func (Format) Scope() format.Scope { return format.ScopeFirstLine }

// NewJudge implements format.Format.
func (Format) NewJudge() format.Judge { return &judge{} }

var none = integrity.MustPaths("type")

type judge struct{ c integrity.Capture }

// Judge checks that line is a JSON object.
func (j *judge) Judge(line []byte, _ format.State, _ *integrity.Arena, ev *format.Event) {
	ev.Reset()
	if reason := j.c.Scan(line, none); reason != "" {
		ev.Corrupt(reason)
	}
}
