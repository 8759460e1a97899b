package format

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/journalship/journalship/integrity"
)

// checkPaths are the paths of the Checker tests; the field under test is
// always "f" (a nested one "o.f").
var checkPaths = integrity.MustPaths("f", "o", "o.f")

const (
	cF = iota
	cO
	cOF
)

// check scans line, runs rule on a Checker over it and returns the
// violations as "field: reason", with the event.
func check(t *testing.T, line string, bestEffort bool, rule func(k *Checker)) ([]string, *Event) {
	t.Helper()
	var c integrity.Capture
	require.Empty(t, c.Scan([]byte(line), checkPaths), line)
	ev := &Event{}
	k := Checker{Capture: &c, Paths: checkPaths, Event: ev, BestEffort: bestEffort}
	rule(&k)
	var out []string
	for _, v := range ev.Violations {
		out = append(out, v.Field+": "+v.Reason)
	}
	return out, ev
}

// verdict is one line a rule judges and the violations it finds.
type verdict struct {
	line string
	want []string // "" for none
}

func v(line, want string) verdict {
	if want == "" {
		return verdict{line: line}
	}
	return verdict{line: line, want: []string{"f: " + want}}
}

func TestReasonsKeepTheirText(t *testing.T) {
	// The reasons are shipped (Loki's violations metadata, golden files).
	for got, want := range map[string]string{
		ReasonRequired:  "required field missing",
		ReasonDuplicate: "duplicate key",
		ReasonString:    "must be a string",
		ReasonEmpty:     "must not be empty",
		ReasonInteger:   "must be an integer",
		ReasonMin0:      "must be >= 0",
		ReasonNumber:    "must be a number",
		ReasonBool:      "must be a boolean",
		ReasonObject:    "must be an object",
		ReasonArray:     "must be an array",
		ReasonDateTime:  "must be an RFC 3339 date-time",
		ReasonStrOrNull: "must be a string or null",
		ReasonObjOrNull: "must be an object or null",
		ReasonArrOrNull: "must be an array or null",
		ReasonIntOrNull: "must be an integer or null",
		ReasonStrOrArr:  "must be a string or an array",
	} {
		assert.Equal(t, want, got)
	}
}

func TestCheckerRules(t *testing.T) {
	rules := []struct {
		name  string
		rule  func(k *Checker, id int)
		cases []verdict
	}{
		{"ReqStr", (*Checker).ReqStr, []verdict{
			v(`{"f":"x"}`, ""), v(`{"f":""}`, ""), v(`{}`, ReasonRequired),
			v(`{"f":1}`, ReasonString), v(`{"f":null}`, ReasonString), v(`{"f":["x"]}`, ReasonString),
		}},
		{"ReqNonEmpty", (*Checker).ReqNonEmpty, []verdict{
			v(`{"f":"x"}`, ""), v(`{"f":"\u0000"}`, ""), v(`{"f":""}`, ReasonEmpty),
			v(`{}`, ReasonRequired), v(`{"f":null}`, ReasonString), v(`{"f":false}`, ReasonString),
		}},
		{"ReqNonEmptyOrNull", (*Checker).ReqNonEmptyOrNull, []verdict{
			v(`{"f":"x"}`, ""), v(`{"f":null}`, ""), v(`{"f":""}`, ReasonEmpty),
			v(`{}`, ReasonRequired), v(`{"f":1}`, ReasonStrOrNull),
		}},
		{"OptStr", (*Checker).OptStr, []verdict{
			v(`{"f":"x"}`, ""), v(`{"f":""}`, ""), v(`{}`, ""),
			v(`{"f":null}`, ReasonString), v(`{"f":{}}`, ReasonString),
		}},
		{"OptStrOrNull", (*Checker).OptStrOrNull, []verdict{
			v(`{"f":"x"}`, ""), v(`{"f":""}`, ""), v(`{"f":null}`, ""), v(`{}`, ""),
			v(`{"f":1}`, ReasonStrOrNull), v(`{"f":[]}`, ReasonStrOrNull),
		}},
		{"Str(opt,nonEmpty)", func(k *Checker, id int) { k.Str(id, false, true, false) }, []verdict{
			v(`{}`, ""), v(`{"f":"x"}`, ""), v(`{"f":""}`, ReasonEmpty), v(`{"f":1}`, ReasonString),
		}},
		{"ReqStrOrArr", (*Checker).ReqStrOrArr, []verdict{
			v(`{"f":"x"}`, ""), v(`{"f":[]}`, ""), v(`{}`, ReasonRequired),
			v(`{"f":{}}`, ReasonStrOrArr), v(`{"f":null}`, ReasonStrOrArr), v(`{"f":1}`, ReasonStrOrArr),
		}},
		{"StrOrArr(opt)", func(k *Checker, id int) { k.StrOrArr(id, false) }, []verdict{
			v(`{}`, ""), v(`{"f":"x"}`, ""), v(`{"f":true}`, ReasonStrOrArr),
		}},
		{"ReqInt0", (*Checker).ReqInt0, []verdict{
			v(`{"f":0}`, ""), v(`{"f":7}`, ""), v(`{"f":3.0}`, ""), v(`{"f":3e0}`, ""),
			v(`{}`, ReasonRequired), v(`{"f":-1}`, ReasonMin0), v(`{"f":1.5}`, ReasonInteger),
			v(`{"f":1e100}`, ReasonInteger), v(`{"f":"1"}`, ReasonInteger), v(`{"f":null}`, ReasonInteger),
		}},
		{"OptInt0", (*Checker).OptInt0, []verdict{
			v(`{}`, ""), v(`{"f":2}`, ""), v(`{"f":-2}`, ReasonMin0),
			v(`{"f":null}`, ReasonInteger), v(`{"f":"2"}`, ReasonInteger),
		}},
		{"OptInt0OrNull", (*Checker).OptInt0OrNull, []verdict{
			v(`{}`, ""), v(`{"f":2}`, ""), v(`{"f":null}`, ""), v(`{"f":-2}`, ReasonMin0),
			v(`{"f":0.5}`, ReasonInteger), v(`{"f":"2"}`, ReasonIntOrNull), v(`{"f":[]}`, ReasonIntOrNull),
		}},
		{"Int0(req,nullable)", func(k *Checker, id int) { k.Int0(id, true, true) }, []verdict{
			v(`{"f":null}`, ""), v(`{}`, ReasonRequired), v(`{"f":true}`, ReasonIntOrNull),
		}},
		{"ReqNum", (*Checker).ReqNum, []verdict{
			v(`{"f":1.5}`, ""), v(`{"f":-3}`, ""), v(`{}`, ReasonRequired),
			v(`{"f":"1"}`, ReasonNumber), v(`{"f":null}`, ReasonNumber),
		}},
		{"OptNum", (*Checker).OptNum, []verdict{
			v(`{}`, ""), v(`{"f":0}`, ""), v(`{"f":false}`, ReasonNumber),
		}},
		{"ReqBool", (*Checker).ReqBool, []verdict{
			v(`{"f":true}`, ""), v(`{"f":false}`, ""), v(`{}`, ReasonRequired),
			v(`{"f":0}`, ReasonBool), v(`{"f":"true"}`, ReasonBool), v(`{"f":null}`, ReasonBool),
		}},
		{"OptBool", (*Checker).OptBool, []verdict{
			v(`{}`, ""), v(`{"f":false}`, ""), v(`{"f":null}`, ReasonBool),
		}},
		{"ReqObj", func(k *Checker, id int) { k.ReqObj(id) }, []verdict{
			v(`{"f":{}}`, ""), v(`{}`, ReasonRequired), v(`{"f":[]}`, ReasonObject), v(`{"f":null}`, ReasonObject),
		}},
		{"OptObj", func(k *Checker, id int) { k.OptObj(id) }, []verdict{
			v(`{}`, ""), v(`{"f":{"a":1}}`, ""), v(`{"f":"x"}`, ReasonObject), v(`{"f":null}`, ReasonObject),
		}},
		{"OptObjOrNull", func(k *Checker, id int) { k.OptObjOrNull(id) }, []verdict{
			v(`{}`, ""), v(`{"f":{}}`, ""), v(`{"f":null}`, ""), v(`{"f":1}`, ReasonObjOrNull),
		}},
		{"Obj(req,nullable)", func(k *Checker, id int) { k.Obj(id, true, true) }, []verdict{
			v(`{"f":null}`, ""), v(`{}`, ReasonRequired), v(`{"f":[]}`, ReasonObjOrNull),
		}},
		{"ReqArr", (*Checker).ReqArr, []verdict{
			v(`{"f":[]}`, ""), v(`{"f":[1,"x"]}`, ""), v(`{}`, ReasonRequired),
			v(`{"f":{}}`, ReasonArray), v(`{"f":null}`, ReasonArray),
		}},
		{"OptArr", (*Checker).OptArr, []verdict{
			v(`{}`, ""), v(`{"f":[]}`, ""), v(`{"f":"x"}`, ReasonArray), v(`{"f":null}`, ReasonArray),
		}},
		{"OptArrOrNull", (*Checker).OptArrOrNull, []verdict{
			v(`{}`, ""), v(`{"f":[]}`, ""), v(`{"f":null}`, ""), v(`{"f":1}`, ReasonArrOrNull),
		}},
		{"Arr(req,nullable)", func(k *Checker, id int) { k.Arr(id, true, true) }, []verdict{
			v(`{"f":null}`, ""), v(`{}`, ReasonRequired), v(`{"f":{}}`, ReasonArrOrNull),
		}},
		{"ReqTime", (*Checker).ReqTime, []verdict{
			v(`{"f":"2025-01-02T03:04:05Z"}`, ""), v(`{"f":"2025-01-02T03:04:05.123+02:00"}`, ""),
			v(`{}`, ReasonRequired), v(`{"f":"yesterday"}`, ReasonDateTime), v(`{"f":""}`, ReasonDateTime),
			v(`{"f":1735787045}`, ReasonDateTime), v(`{"f":null}`, ReasonDateTime),
		}},
		{"OptTime", (*Checker).OptTime, []verdict{
			v(`{}`, ""), v(`{"f":"2025-01-02T03:04:05Z"}`, ""), v(`{"f":"2025-13-02T03:04:05Z"}`, ReasonDateTime),
		}},
	}
	for _, r := range rules {
		for _, c := range r.cases {
			got, ev := check(t, c.line, false, func(k *Checker) { r.rule(k, cF) })
			assert.Equal(t, c.want, got, "%s %s", r.name, c.line)
			if c.want == nil {
				assert.Equal(t, integrity.Valid, ev.Outcome, "%s %s", r.name, c.line)
			} else {
				assert.Equal(t, integrity.SchemaInvalid, ev.Outcome, "%s %s", r.name, c.line)
			}
			assert.Zero(t, ev.Flags, "%s %s", r.name, c.line)

			// Best effort: the same rule finds nothing.
			got, ev = check(t, c.line, true, func(k *Checker) { r.rule(k, cF) })
			assert.Empty(t, got, "%s %s best effort", r.name, c.line)
			assert.Equal(t, integrity.Valid, ev.Outcome, "%s %s best effort", r.name, c.line)
		}
		// A key written twice: the first occurrence is judged, the line
		// flagged and the duplicate is a violation first.
		got, ev := check(t, `{"f":"2025-01-02T03:04:05Z","f":[]}`, false, func(k *Checker) { r.rule(k, cF) })
		require.NotEmpty(t, got, r.name)
		assert.Equal(t, "f: "+ReasonDuplicate, got[0], r.name)
		assert.Equal(t, DuplicateKey, ev.Flags, r.name)
	}
}

func TestCheckerNamesNestedFields(t *testing.T) {
	got, _ := check(t, `{"o":{"f":-1}}`, false, func(k *Checker) {
		if k.ReqObj(cO) {
			k.ReqInt0(cOF)
		}
	})
	assert.Equal(t, []string{"o.f: " + ReasonMin0}, got)

	got, _ = check(t, `{}`, false, func(k *Checker) {
		if k.ReqObj(cO) {
			k.ReqInt0(cOF)
		}
	})
	assert.Equal(t, []string{"o: " + ReasonRequired}, got, "members of a missing object are not judged by the caller")
}

func TestCheckerObjTellsWhetherItIsOne(t *testing.T) {
	for line, want := range map[string]bool{`{"f":{}}`: true, `{}`: false, `{"f":null}`: false, `{"f":[]}`: false} {
		var got [5]bool
		check(t, line, false, func(k *Checker) {
			got = [5]bool{k.ReqObj(cF), k.OptObj(cF), k.OptObjOrNull(cF), k.Obj(cF, true, true), k.Obj(cF, false, false)}
		})
		assert.Equal(t, [5]bool{want, want, want, want, want}, got, line)
	}
}

func TestCheckerDupAndPresent(t *testing.T) {
	_, ev := check(t, `{"f":1,"f":"x"}`, false, func(k *Checker) {
		v := k.Dup(cF)
		assert.Equal(t, integrity.JSONNumber, v.Kind, "the first occurrence")
		assert.EqualValues(t, 2, v.Count)
	})
	assert.Equal(t, DuplicateKey, ev.Flags)
	assert.Equal(t, []integrity.Violation{{Field: "f", Reason: ReasonDuplicate}}, ev.Violations)

	_, ev = check(t, `{"f":1,"f":"x"}`, true, func(k *Checker) { k.Dup(cF) })
	assert.Equal(t, DuplicateKey, ev.Flags, "best effort flags a duplicate")
	assert.Empty(t, ev.Violations, "best effort: no violation")

	got, _ := check(t, `{"f":null}`, false, func(k *Checker) {
		assert.Equal(t, integrity.JSONNull, k.Present(cF, true))
		assert.Equal(t, integrity.JSONAbsent, k.Present(cO, false))
		assert.Equal(t, integrity.JSONAbsent, k.Present(cOF, true))
	})
	assert.Equal(t, []string{"o.f: " + ReasonRequired}, got)

	got, _ = check(t, `{}`, false, func(k *Checker) { k.Bad(cO, "custom reason") })
	assert.Equal(t, []string{"o: custom reason"}, got, "Bad names the field by Paths")
	got, _ = check(t, `{}`, true, func(k *Checker) { k.Bad(cO, "custom reason") })
	assert.Empty(t, got, "Bad in best effort")
}

func TestCheckerTimeSetsTheLinesTime(t *testing.T) {
	want := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, bestEffort := range []bool{false, true} {
		_, ev := check(t, `{"f":"2025-01-02T03:04:05Z"}`, bestEffort, func(k *Checker) { k.ReqTime(cF) })
		assert.True(t, ev.HasTime)
		assert.True(t, want.Equal(ev.Time), ev.Time)

		_, ev = check(t, `{"f":"2025-01-02T03:04:05Z"}`, bestEffort, func(k *Checker) { k.OptTime(cF) })
		assert.True(t, ev.HasTime)
	}
	for _, line := range []string{`{}`, `{"f":"soon"}`, `{"f":1}`} {
		_, ev := check(t, line, false, func(k *Checker) { k.OptTime(cF) })
		assert.False(t, ev.HasTime, line)
	}
}

func TestClip(t *testing.T) {
	assert.Equal(t, []byte("short"), Clip([]byte("short")))
	assert.Empty(t, Clip(nil))
	s := strings.Repeat("a", MaxDetail)
	assert.Equal(t, s, string(Clip([]byte(s))), "exactly MaxDetail")
	assert.Equal(t, s, string(Clip([]byte(s+"b"))))
	assert.Equal(t, strings.Repeat("é", 32), string(Clip([]byte(strings.Repeat("é", 40)))))
	assert.Equal(t, strings.Repeat("€", 21), string(Clip([]byte(strings.Repeat("€", 30)))), "cut on a rune boundary")
}

func TestNonEmptyStr(t *testing.T) {
	var c integrity.Capture
	require.Empty(t, c.Scan([]byte(`{"f":"a\nb","o":""}`), checkPaths))
	s, ok := NonEmptyStr(&c, cF)
	assert.True(t, ok)
	assert.Equal(t, "a\nb", string(s), "decoded")
	_, ok = NonEmptyStr(&c, cO)
	assert.False(t, ok, "empty")
	_, ok = NonEmptyStr(&c, cOF)
	assert.False(t, ok, "absent")
	require.Empty(t, c.Scan([]byte(`{"f":1}`), checkPaths))
	_, ok = NonEmptyStr(&c, cF)
	assert.False(t, ok, "not a string")
}

func TestCheckerDoesNotAllocate(t *testing.T) {
	var c integrity.Capture
	line := []byte(`{"f":"2025-01-02T03:04:05Z","f":1,"o":{"f":-1}}`)
	ev := &Event{Violations: make([]integrity.Violation, 0, 64)}
	k := Checker{Capture: &c, Paths: checkPaths, Event: ev}
	allocs := testing.AllocsPerRun(100, func() {
		c.Scan(line, checkPaths)
		ev.Reset()
		k.ReqTime(cF)
		k.ReqNonEmptyOrNull(cF)
		k.OptInt0OrNull(cF)
		k.ReqStrOrArr(cF)
		if k.OptObjOrNull(cO) {
			k.ReqInt0(cOF)
		}
		k.OptArrOrNull(cO)
		k.ReqBool(cO)
		k.ReqNum(cO)
		Clip(line)
		NonEmptyStr(&c, cF)
	})
	assert.Zero(t, allocs)
	assert.NotEmpty(t, ev.Violations)
}
