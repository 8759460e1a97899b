package formattest

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"unicode/utf8"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/integrity"
)

// FirstMember returns the first occurrence of a top-level member of a
// JSON object (encoding/json keeps the last), whether the data is one
// JSON object at all, and whether it has the member.
func FirstMember(data []byte, key string) (raw json.RawMessage, object, has bool) {
	if !utf8.Valid(data) || !json.Valid(data) {
		return nil, false, false
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, false, false
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return nil, false, false
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, false, false
		}
		if k == key && !has {
			raw, has = v, true
		}
	}
	return raw, true, has
}

// CorruptOracle tells with encoding/json whether a line is corrupt: not
// valid UTF-8, not JSON, not an object, or its first member key (the
// type's: "type", "kind") is missing or not a string.
func CorruptOracle(line []byte, key string) bool {
	raw, object, has := FirstMember(line, key)
	return !object || !has || raw[0] != '"'
}

// AddFiles adds the files matching pattern to the fuzz corpus, each whole
// and each of its lines.
func AddFiles(f *testing.F, pattern string) {
	files, _ := filepath.Glob(pattern)
	for _, file := range files {
		data, _ := os.ReadFile(file)
		f.Add(data)
		for l := range bytes.SplitSeq(data, []byte("\n")) {
			f.Add(l)
		}
	}
}

// CheckEvent fails t where ev breaks what every format's events keep: a
// corrupt line has its reason and nothing learned, a schema-invalid one
// its violations, any other none; the event type is one of known
// (EventTypes) and each note's kind one of kinds (Annotations).
func CheckEvent(t testing.TB, ev *format.Event, known, kinds []string) {
	t.Helper()
	switch ev.Outcome {
	case integrity.Corrupt:
		if ev.CorruptReason == "" || ev.EventType != "" || ev.NoteCount != 0 || len(ev.Violations) != 0 {
			t.Fatalf("corrupt line keeps what was learned: %+v", ev)
		}
	case integrity.SchemaInvalid:
		if len(ev.Violations) == 0 {
			t.Fatal("schema_invalid without violations")
		}
	default:
		if len(ev.Violations) != 0 {
			t.Fatalf("valid with violations %v", ev.Violations)
		}
	}
	if ev.EventType != "" && !slices.Contains(known, ev.EventType) {
		t.Fatalf("event_type %q", ev.EventType)
	}
	for _, n := range ev.Notes[:ev.NoteCount] {
		if !slices.Contains(kinds, n.Kind) {
			t.Fatalf("note %q not in Annotations()", n.Kind)
		}
	}
}
