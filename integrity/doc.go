// Package integrity judges single journal lines and the continuity between
// them, following the Cortex Plane session buffer format
// (docs/formats/cortex-plane.md, sections 3 and 4).
//
// Every line gets exactly one Outcome:
//   - Corrupt: not JSON, not an object, or no string "type"/"timestamp" (the
//     seed's parseLine rule), or not valid UTF-8;
//   - SchemaInvalid: an event whose fields break its type's schema (required
//     fields, types, enums, uuid / 64-hex / date-time formats, lengths);
//   - Valid.
//
// Unknown fields always pass. An unknown event type passes with the
// UnknownType flag. When a session declares a buffer_schema_version this
// package does not know, lines are judged best-effort: only the fields the
// seed guarantees for every version (type, timestamp, job_id) are checked.
//
// A line is read in one pass by a strict scanner (RFC 8259 JSON, as
// encoding/json.Valid accepts it, in valid UTF-8, nested at most 10000 deep)
// that hands the top-level members to the schema checks without building
// anything. The validator copies the values it extracts into an Arena owned
// by the caller, so a chunk is validated with no allocation per line.
package integrity
