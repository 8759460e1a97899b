package loki

import (
	"strconv"
	"strings"
	"time"
)

// scanner matches one of Loki's error texts piece by piece. Once a step
// fails, every later step fails too.
type scanner struct {
	s  string
	ok bool
}

func newScanner(s string) *scanner { return &scanner{s: s, ok: true} }

func (c *scanner) lit(p string) {
	if c.ok && strings.HasPrefix(c.s, p) {
		c.s = c.s[len(p):]
		return
	}
	c.ok = false
}

func (c *scanner) labels() []Label {
	if !c.ok {
		return nil
	}
	ls, rest, ok := parseLabelsPrefix(c.s)
	c.s, c.ok = rest, ok
	return ls
}

func (c *scanner) int() int {
	i := 0
	for c.ok && i < len(c.s) && c.s[i] >= '0' && c.s[i] <= '9' {
		i++
	}
	n, err := strconv.Atoi(c.s[:i])
	if !c.ok || err != nil {
		c.ok = false
		return 0
	}
	c.s = c.s[i:]
	return n
}

// rfc3339 reads a time printed with Format(time.RFC3339).
func (c *scanner) rfc3339() time.Time {
	i := 0
	for c.ok && i < len(c.s) && strings.IndexByte("0123456789-:+.TZ", c.s[i]) >= 0 {
		i++
	}
	t, err := time.Parse(time.RFC3339, c.s[:i])
	if !c.ok || err != nil {
		c.ok = false
		return time.Time{}
	}
	c.s = c.s[i:]
	return t
}

// until skips to the first occurrence of p, which is not consumed.
func (c *scanner) until(p string) string {
	i := strings.Index(c.s, p)
	if !c.ok || i < 0 {
		c.ok = false
		return ""
	}
	skipped := c.s[:i]
	c.s = c.s[i:]
	return skipped
}

func (c *scanner) end() bool { return c.ok && c.s == "" }

// entryMatch selects the entries of one stream that a message is about.
type entryMatch func(e *pushEntry) bool

// parsedMessage is one distributor message mapped to a stream and entries.
type parsedMessage struct {
	labels []Label
	match  entryMatch // nil: every entry of the stream (a stream-level error)
	scope  scope
}

// scope says whose a refusal is.
type scope uint8

const (
	scopeLine scope = iota // the line's: it is dead-lettered
	// scopeLimit: a limit of the tenant (structured metadata's size or
	// count) that every entry this plugin sends is near: when it refuses
	// every entry of the request, it is the configuration's, not a line's.
	scopeLimit
	// scopeTenant: the tenant takes no structured metadata at all.
	scopeTenant
)

// A messageParser recognises one of Loki's texts; ok is false when msg is
// not that text.
type messageParser func(msg string) (parsedMessage, bool)

// distributorMessages are the texts of pkg/validation/validate.go as
// formatted in pkg/distributor/validator.go and distributor.go (Loki v3.7.8).
var distributorMessages = []messageParser{
	parseTooOld, parseTooNew, parseLabelNames, parseLineTooLong,
	parseMetadataDisallowed, parseMetadataTooLarge, parseMetadataTooMany,
	parseLabelNameTooLong, parseLabelValueTooLong, parseDuplicateLabel,
	parseMissingEnforced,
}

// sameSecond matches entries whose timestamp Loki printed as t (RFC3339
// drops the fraction, so every entry of that second matches).
func sameSecond(t time.Time) entryMatch {
	sec := t.Unix()
	return func(e *pushEntry) bool { return e.Timestamp.Unix() == sec }
}

// GreaterThanMaxSampleAgeErrorMsg:
// "entry for stream '%s' has timestamp too old: %v, oldest acceptable timestamp is: %v"
func parseTooOld(msg string) (parsedMessage, bool) {
	c := newScanner(msg)
	c.lit("entry for stream '")
	ls := c.labels()
	c.lit("' has timestamp too old: ")
	t := c.rfc3339()
	c.lit(", oldest acceptable timestamp is: ")
	c.rfc3339()
	return parsedMessage{labels: ls, match: sameSecond(t)}, c.end()
}

// TooFarInFutureErrorMsg: "entry for stream '%s' has timestamp too new: %v"
func parseTooNew(msg string) (parsedMessage, bool) {
	c := newScanner(msg)
	c.lit("entry for stream '")
	ls := c.labels()
	c.lit("' has timestamp too new: ")
	t := c.rfc3339()
	return parsedMessage{labels: ls, match: sameSecond(t)}, c.end()
}

// MaxLabelNamesPerSeriesErrorMsg: "entry for stream '%s' has %d label names; limit %d"
func parseLabelNames(msg string) (parsedMessage, bool) {
	c := newScanner(msg)
	c.lit("entry for stream '")
	ls := c.labels()
	c.lit("' has ")
	c.int()
	c.lit(" label names; limit ")
	c.int()
	return parsedMessage{labels: ls}, c.end()
}

// LineTooLongErrorMsg:
// "max entry size '%d' bytes exceeded for stream '%s' while adding an entry with length '%d' bytes"
func parseLineTooLong(msg string) (parsedMessage, bool) {
	c := newScanner(msg)
	c.lit("max entry size '")
	c.int()
	c.lit("' bytes exceeded for stream '")
	ls := c.labels()
	c.lit("' while adding an entry with length '")
	n := c.int()
	c.lit("' bytes")
	return parsedMessage{labels: ls, match: func(e *pushEntry) bool { return len(e.Line) == n }}, c.end()
}

// DisallowedStructuredMetadataErrorMsg:
// "stream '%s' includes structured metadata, but this feature is disallowed. Please see ..."
// A tenant that refuses structured metadata (a schema before v13, or
// allow_structured_metadata off) refuses every line that carries some,
// and stores the others: the refusal is the tenant's, and the lines are
// sent again until it is fixed, never dead-lettered.
func parseMetadataDisallowed(msg string) (parsedMessage, bool) {
	c := newScanner(msg)
	c.lit("stream '")
	ls := c.labels()
	c.lit("' includes structured metadata, but this feature is disallowed.")
	return parsedMessage{labels: ls, match: func(e *pushEntry) bool { return len(e.StructuredMetadata) > 0 }, scope: scopeTenant}, c.ok
}

// StructuredMetadataTooLargeErrorMsg:
// "stream '%s' has structured metadata too large: '%d' bytes, limit: '%d' bytes. Please see ..."
func parseMetadataTooLarge(msg string) (parsedMessage, bool) {
	c := newScanner(msg)
	c.lit("stream '")
	ls := c.labels()
	c.lit("' has structured metadata too large: '")
	n := c.int()
	c.lit("' bytes, limit: '")
	c.int()
	c.lit("' bytes.")
	return parsedMessage{labels: ls, match: func(e *pushEntry) bool { return metadataSize(e.StructuredMetadata) == n }, scope: scopeLimit}, c.ok
}

// StructuredMetadataTooManyErrorMsg:
// "stream '%s' has too many structured metadata labels: '%d', limit: '%d'. Please see ..."
func parseMetadataTooMany(msg string) (parsedMessage, bool) {
	c := newScanner(msg)
	c.lit("stream '")
	ls := c.labels()
	c.lit("' has too many structured metadata labels: '")
	n := c.int()
	c.lit("', limit: '")
	c.int()
	c.lit("'.")
	return parsedMessage{labels: ls, match: func(e *pushEntry) bool { return len(e.StructuredMetadata) == n }, scope: scopeLimit}, c.ok
}

// metadataSize is pkg/util.StructuredMetadataSize: names and values, except
// detected_level.
func metadataSize(md []Label) int {
	n := 0
	for _, m := range md {
		if m.Name != "detected_level" {
			n += len(m.Name) + len(m.Value)
		}
	}
	return n
}

// streamError parses "stream '%s'<infix>'%s'" (the label name or value is
// not needed: the whole stream is refused).
func streamError(msg, infix string) (parsedMessage, bool) {
	c := newScanner(msg)
	c.lit("stream '")
	ls := c.labels()
	c.lit("'" + infix + "'")
	return parsedMessage{labels: ls}, c.ok && strings.HasSuffix(c.s, "'")
}

// LabelNameTooLongErrorMsg: "stream '%s' has label name too long: '%s'"
func parseLabelNameTooLong(msg string) (parsedMessage, bool) {
	return streamError(msg, " has label name too long: ")
}

// LabelValueTooLongErrorMsg: "stream '%s' has label value too long: '%s'"
func parseLabelValueTooLong(msg string) (parsedMessage, bool) {
	return streamError(msg, " has label value too long: ")
}

// DuplicateLabelNamesErrorMsg: "stream '%s' has duplicate label name: '%s'"
func parseDuplicateLabel(msg string) (parsedMessage, bool) {
	return streamError(msg, " has duplicate label name: ")
}

// MissingEnforcedLabelsErrorMsg:
// "missing required labels '%s' for user '%s' for stream '%s' (policy: '%s')"
func parseMissingEnforced(msg string) (parsedMessage, bool) {
	c := newScanner(msg)
	c.lit("missing required labels '")
	c.until("' for user '")
	c.lit("' for user '")
	c.until("' for stream '{")
	c.lit("' for stream '")
	ls := c.labels()
	c.lit("' (policy: '")
	return parsedMessage{labels: ls}, c.ok && strings.HasSuffix(c.s, "')")
}

// mapMessage maps one distributor message that Loki counted count times.
//
// A stream-level message (about the labels, not any line) is not mapped
// to entries: it reports false, and the request is retried as a whole.
func (v *reqView) mapMessage(msg string, count int) bool {
	for _, parse := range distributorMessages {
		pm, ok := parse(msg)
		if !ok {
			continue
		}
		if pm.match == nil {
			return false // the stream is refused, not its lines
		}
		i, found := v.findSegment(pm.labels)
		if !found {
			return false
		}
		n := v.rejectWhere(i, msg, pm.scope, pm.match)
		// An entry error counted more often than entries match: the texts
		// do not describe this request as it was sent.
		return n > 0 && n >= count
	}
	return false
}
