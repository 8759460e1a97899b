package integrity

import (
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"
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
		return errors.New("integrity: at least one known schema version is required")
	}
	for _, v := range c.KnownSchemaVersions {
		if v < 1 {
			return fmt.Errorf("integrity: schema version %d is not >= 1", v)
		}
	}
	return nil
}

// Validator judges lines. It is not safe for concurrent use: give each
// goroutine its own (they are cheap) or take them from a sync.Pool.
type Validator struct {
	cfg     Config
	sc      scanner
	set     fieldSet
	scratch []byte // unescaped string values, reused
}

// New returns a validator for cfg.
func New(cfg Config) (*Validator, error) {
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
// The line is read in one pass: the scanner validates it as strict JSON
// while handing out the top-level members, and the judge applies the
// schema to the known ones as they come (members before "type" wait in
// v.set until the type is known). A line found corrupt at the end loses
// whatever was judged.
func (v *Validator) Validate(line []byte, bestEffort bool, a *Arena, ev *Event) {
	ev.Reset()
	none := ev.Violations // as a corrupt line leaves them: nil stays nil
	if reason := v.judgeLine(line, bestEffort, a, ev); reason != "" {
		*ev = Event{Outcome: Corrupt, CorruptReason: reason, Violations: none}
	}
}

// judgeLine judges line into ev and returns why it is corrupt, or "".
func (v *Validator) judgeLine(line []byte, bestEffort bool, a *Arena, ev *Event) string {
	if isBlank(line) {
		return "blank line"
	}
	sc := &v.sc
	v.set.reset()
	j := judge{ev: ev, a: a, v: v, line: line, bestEffort: bestEffort}
	if sc.start(line, maxDepth) {
		var m member
		for sc.next(&m, &shapes) {
			switch {
			case m.field == fNone: // unknown fields pass
			case j.spec != nil && m.field != fTimestamp:
				j.visit(m.field, &m.slot) // the common case, see member
			default:
				j.member(m.field, &m)
			}
		}
	}
	// The scanner checks UTF-8 in strings, and outside them anything but
	// ASCII is not JSON: a line it accepts is valid UTF-8. A line it refuses
	// may be refused for its UTF-8, which is the reason to give.
	switch {
	case sc.status != scanOK && !utf8.Valid(line):
		return "invalid UTF-8"
	case sc.status == scanSyntax:
		return "not JSON"
	case sc.status == scanTooDeep:
		return reasonTooDeep
	case !sc.object:
		return "not a JSON object"
	}
	if reason := j.end(); reason != "" {
		return reason
	}
	j.finish()
	return ""
}

func isBlank(b []byte) bool {
	if len(b) > 0 && b[0] > ' ' {
		return false
	}
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return false
		}
	}
	return true
}

// unescape decodes a string value's escapes into the validator's scratch
// buffer, valid until the next call.
func (v *Validator) unescape(s []byte) []byte {
	v.scratch = unescape(v.scratch[:0], s)
	return v.scratch
}

// reasonTooDeep is the corrupt reason of a line nested deeper than maxDepth.
var reasonTooDeep = "not JSON: nested deeper than " + strconv.Itoa(maxDepth) + " levels"
