package cortex

import (
	"errors"
	"fmt"

	"github.com/journalship/journalship/integrity"
)

// Config selects what the validator accepts.
type Config struct {
	// KnownSchemaVersions are the buffer_schema_version values judged with
	// the full schema; sessions declaring any other version are judged
	// best-effort. Default: [1].
	KnownSchemaVersions []int64
}

// DefaultConfig returns the configuration for buffer schema version 1.
func DefaultConfig() Config {
	return Config{KnownSchemaVersions: []int64{1}}
}

// Validate reports a configuration that cannot work.
func (c Config) Validate() error {
	if len(c.KnownSchemaVersions) == 0 {
		return errors.New("cortex: at least one known schema version is required")
	}
	for _, v := range c.KnownSchemaVersions {
		if v < 1 {
			return fmt.Errorf("cortex: schema version %d is not >= 1", v)
		}
	}
	return nil
}

// Validator judges lines by the buffer schema. It is not safe for
// concurrent use: give each goroutine its own (they are cheap) or take them
// from a sync.Pool.
type Validator struct {
	cfg     Config
	mem     integrity.Members
	set     fieldSet
	scratch []byte // unescaped string values, reused
}

// NewValidator returns a validator for cfg.
func NewValidator(cfg Config) (*Validator, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Validator{cfg: cfg, set: fieldSet{order: make([]field, 0, 64)}}, nil
}

// KnownVersion tells whether a buffer_schema_version is judged strictly.
func (v *Validator) KnownVersion(n int64) bool {
	for _, k := range v.cfg.KnownSchemaVersions {
		if k == n {
			return true
		}
	}
	return false
}

// Validate judges one line (without its newline) into ev. With bestEffort,
// only the version-independent fields are checked. Extracted values are
// copied into a.
//
// The line is read in one pass: integrity's scan (Members) checks it as
// strict JSON while handing out the top-level members, each with its field
// (bufferKeys), and the judge applies the schema to the known ones as they
// come (members before "type" wait in v.set until the type is known). A
// line found corrupt at the end loses whatever was judged.
func (v *Validator) Validate(line []byte, bestEffort bool, a *integrity.Arena, ev *Event) {
	ev.Reset()
	none := ev.Violations // as a corrupt line leaves them: nil stays nil
	if reason := v.judgeLine(line, bestEffort, a, ev); reason != "" {
		*ev = Event{Outcome: integrity.Corrupt, CorruptReason: reason, Violations: none}
	}
}

// judgeLine judges line into ev and returns why it is corrupt, or "".
func (v *Validator) judgeLine(line []byte, bestEffort bool, a *integrity.Arena, ev *Event) string {
	r := &v.mem
	v.set.reset()
	j := lineJudge{verdict: verdict{ev: ev, a: a, bestEffort: bestEffort}, v: v, line: line}
	if r.Start(line) {
		var m integrity.Member
		for r.Next(&m, bufferKeys) {
			switch f := field(m.ID); {
			case f == fNone: // unknown fields pass
			case j.spec != nil && f != fTimestamp:
				j.visit(f, &m.Slot) // the common case, see member
			default:
				j.member(f, &m)
			}
		}
	}
	if reason := r.Verdict(); reason != "" {
		return reason // blank, not JSON, not an object
	}
	if reason := j.end(); reason != "" {
		return reason
	}
	j.finish()
	return ""
}

// unescape decodes a string value's escapes into the validator's scratch
// buffer, valid until the next call.
func (v *Validator) unescape(s []byte) []byte {
	v.scratch = integrity.Unescape(v.scratch[:0], s)
	return v.scratch
}
