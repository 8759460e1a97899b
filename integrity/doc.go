// Package integrity is the format-neutral core of line judging: it checks
// journal lines as strict JSON and reads their values without allocating,
// and it judges the continuity of a file's sequence numbers. Each journal
// format (package format and its subpackages) builds its judge on it; this
// package knows no format's event types or fields.
//
// Every line gets exactly one Outcome: Corrupt (not JSON, not an object,
// not valid UTF-8, or what a format adds to that), SchemaInvalid (the
// format's schema is broken, listed as Violations) or Valid.
//
// A line is read in one pass by a strict scanner (RFC 8259 JSON, as
// encoding/json.Valid accepts it, in valid UTF-8, nested at most 10000 deep)
// that builds nothing: values are positions in the line, decoded on demand.
// It has two faces:
//   - Capture, for nested paths ("output.usage.input_tokens") compiled
//     into Paths: a whole line is scanned and each path's value kept;
//   - Members, for flat objects judged against a schema of top-level keys
//     compiled into Keys: the members come one at a time, in the order of
//     the line, for the format to judge as they come (Cortex Plane's
//     validator, format/cortex).
//
// Helpers read what the scanner found: Unescape, Longer, ParseTime (RFC
// 3339), IsUUID and IsHex64 (checked eight bytes at a time), Slot.Int.
// Formats copy the values they keep into an Arena owned by the caller, so a
// chunk is judged with no allocation per line. SeqRule judges a line's seq
// against the lines before it (gaps, repeats, regressions).
package integrity
