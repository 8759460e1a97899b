package cortex

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/valyala/fastjson"

	"github.com/journalship/journalship/integrity"
	cortexsample "github.com/journalship/journalship/internal/sample/cortex"
)

// The depth limit of integrity's scanner, and its reason.
const (
	maxDepth      = 10000
	reasonTooDeep = "not JSON: nested deeper than 10000 levels"
)

// quirks are lines where the old fastjson-based validator had to be matched
// detail for detail: escaped and repeated keys, surrogate escapes, float
// arithmetic, depth.
var quirks = []string{
	`{"ty\u0070e":5,"type":"ERROR","timestamp":"2026-02-23T14:30:22Z"}`,
	`{"ty\u0070e":"ERROR","type":5,"timestamp":"2026-02-23T14:30:22Z"}`,
	`{"ty\u0070e":"ERROR","timestamp":5,"time\u0073tamp":"2026-02-23T14:30:22Z"}`,
	`{"type":"ERROR","time\u0073tamp":5,"timestamp":"2026-02-23T14:30:22Z"}`,
	`{"ty\u0070e":"ERROR","time\u0073tamp":5,"timestamp":"2026-02-23T14:30:22Z"}`,
	`{"type":"ERROR","timestamp":"2026-02-23T14:30:22Z","job_id":"` + jobID + `","session_id":"` + sessID + `","seq":1,"s\u0065q":2}`,
	`{"type":"LLM_REQUEST","timestamp":"2026-02-23T14:30:22Z","job_id":"` + jobID + `","session_id":"` + sessID + `","seq":1,"model":"a\ud800b\ud800\u0041c\uD83D\uDE00","step_index":0.07e2}`,
	`{"type":"\ud800","timestamp":"2026-02-23T14:30:22Z"}`,
	`{"type":"SESSION_END","timestamp":"2026-02-23T14:30:22Z","job_id":"` + jobID + `","session_id":"` + sessID + `","seq":1.0,"reason":"completed","total_events":1e1,"final_step_index":9.2e18}`,
	`{"type":"SESSION_END","timestamp":"2026-02-23T14:30:22+02:00","job_id":"` + jobID + `","session_id":"` + sessID + `","seq":-0,"reason":"c\u006fmpleted","total_events":1e400}`,
	`{"type":"TOOL_START","timestamp":"2026-02-23t14:30:22z","job_id":"` + strings.ToUpper(jobID) + `","session_id":"\u0030` + sessID[1:] + `","seq":4,"invocation_id":"` + invID + `","tool_name":"\u0000","input_hash":"` + hash64 + `","input_summary":"` + strings.Repeat(`\u00e9`, 1025) + `"}`,
	`{"type":"TOOL_RESULT","timestamp":"2026-02-23T14:30:22.1234567891Z","job_id":"` + jobID + `","session_id":"` + sessID + `","seq":5,"invocation_id":"` + invID + `","tool_name":"t","success":true,"duration_ms":1,"result_summary":"` + strings.Repeat(`\ud800`, 700) + `"}`,
	`{"type":"ERROR","timestamp":"2026-02-23T14:30:22Z","a":` + strings.Repeat("[", 298) + "1" + strings.Repeat("]", 298) + `}`,
	`{"type":"ERROR","timestamp":"2026-02-23T14:30:22Z","a":` + strings.Repeat("[", 299) + "1" + strings.Repeat("]", 299) + `}`,
	strings.Repeat("[", 400) + strings.Repeat("]", 400),
	strings.Repeat("[", 400) + strings.Repeat("]", 399),
	"\"x\"", "[]", "1", "null", " ", "\xff", `{"type":"ERROR","timestamp":"2026-02-23T14:30:22Z","x":NaN}`,
	// Judged, then found not JSON: nothing of the judging stays.
	`{"type":"","job_id":00`, `{"type":"ERROR","timestamp":"x","seq":-1,"job_id":"y","session_id":"z"`,
}

// FuzzValidate checks that Validate never panics, that every line
// encoding/json rejects is corrupt, and that every verdict and extracted
// value equals the old fastjson-based validator's.
func FuzzValidate(f *testing.F) {
	for _, l := range cortexsample.Lines(1, 60) {
		f.Add(string(l), false)
	}
	for _, l := range quirks {
		f.Add(l, false)
		f.Add(l, true)
	}
	v, err := NewValidator(DefaultConfig())
	require.NoError(f, err)
	var old legacyValidator
	a := integrity.NewArena(1 << 16)
	f.Fuzz(func(t *testing.T, l string, bestEffort bool) {
		line := []byte(l)
		var got, want Event
		a.Reset(1 << 16)
		v.Validate(line, bestEffort, a, &got)
		if !json.Valid(line) && got.Outcome != integrity.Corrupt {
			t.Fatalf("encoding/json rejects %q, Validate says %v", l, got.Outcome)
		}
		old.Validate(line, bestEffort, a, &want)
		got.Violations = legacyReasons(got.Violations)
		if reflect.DeepEqual(got, want) {
			return
		}
		// The old validator stopped at 300 levels; valid JSON up to
		// encoding/json's 10000 is judged now.
		if want.CorruptReason == "not JSON: parse error" && json.Valid(line) {
			return
		}
		// fastjson's validator missed a raw control character in a string;
		// the line is not JSON, and now says so.
		if fastjsonMissesControl(line) && got.CorruptReason == "not JSON" {
			return
		}
		t.Fatalf("line %q\n got %+v\nwant %+v", l, got, want)
	})
}

// fastjsonMissesControl tells whether line is one the old validator
// accepted by mistake: fastjson's validator only looks for control
// characters after a string's last escape, so it takes a raw control
// character followed by an escape in the same string (or key).
func fastjsonMissesControl(line []byte) bool {
	if json.Valid(line) || fastjson.ValidateBytes(line) != nil {
		return false
	}
	in, ctl := false, false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case !in:
			in = c == '"'
		case c == '"':
			in, ctl = false, false
		case c < 0x20:
			ctl = true
		case c == '\\':
			if ctl {
				return true
			}
			i++
		}
	}
	return false
}

// TestValidateMatchesLegacy pins the quirks outside fuzzing.
func TestValidateMatchesLegacy(t *testing.T) {
	v, err := NewValidator(DefaultConfig())
	require.NoError(t, err)
	var old legacyValidator
	lines := append([]string{}, quirks...)
	for _, l := range cortexsample.Lines(7, 400) {
		lines = append(lines, string(l))
	}
	for _, l := range lines {
		for _, bestEffort := range []bool{false, true} {
			var got, want Event
			v.Validate([]byte(l), bestEffort, integrity.NewArena(64), &got)
			old.Validate([]byte(l), bestEffort, integrity.NewArena(64), &want)
			got.Violations = legacyReasons(got.Violations)
			if want.CorruptReason == "not JSON: parse error" && json.Valid([]byte(l)) {
				assert.NotContains(t, got.CorruptReason, "not JSON", "valid JSON past the old 300 levels is judged: %q", l)
				continue
			}
			require.Equal(t, want, got, "line %q", l)
		}
	}
}

// TestValidateControlBeforeEscape covers the one verdict that changed: the
// old validator accepted a raw control character in a string when an escape
// followed it in the same string (a fastjson bug); RFC 8259 and
// encoding/json do not, and neither does Validate now.
func TestValidateControlBeforeEscape(t *testing.T) {
	for _, l := range []string{
		"{\"type\":\"ERROR\",\"timestamp\":\"2026-02-23T14:30:22Z\",\"x\":\"a\x01b\\n\"}",
		"{\"type\":\"ERROR\",\"timestamp\":\"2026-02-23T14:30:22Z\",\"x\ty\\n\":1}",
		"{\"\":\"\x00\\b\"}",
	} {
		require.False(t, json.Valid([]byte(l)))
		require.NoError(t, fastjson.ValidateBytes([]byte(l)), "the old validator took it")
		ev := validate(t, l, false)
		assert.Equal(t, integrity.Corrupt, ev.Outcome)
		assert.Equal(t, "not JSON", ev.CorruptReason)
	}
}

func TestValidateQuirks(t *testing.T) {
	cases := []struct {
		name, line, corrupt, violations string
	}{
		{"plain type key is preferred", quirks[0], "", "type: must be a string; type: duplicate key; job_id: required field missing; session_id: required field missing"},
		{"escaped type key counts when no plain one matches", `{"ty\u0070e":"ERROR","timestamp":"2026-02-23T14:30:22Z"}`, "", "job_id: required field missing; session_id: required field missing"},
		{"then timestamp is the first, escaped or not", quirks[4], `no string "timestamp"`, ""},
		{"escaped duplicate is a duplicate", quirks[5], "", "seq: duplicate key"},
		{"0.07e2 is not an integer in float64", quirks[6], "", "step_index: must be an integer"},
		{"deeper than the old 300 levels is judged", quirks[13], "", "job_id: required field missing; session_id: required field missing"},
		{"beyond encoding/json's depth", `{"a":` + strings.Repeat("[", maxDepth) + strings.Repeat("]", maxDepth) + `}`, reasonTooDeep, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ev := validate(t, tc.line, false)
			assert.Equal(t, tc.corrupt, ev.CorruptReason)
			assert.Equal(t, tc.violations, ev.ViolationText())
		})
	}
	ev := validate(t, quirks[6], false)
	assert.Equal(t, "a\\ud800b\uFFFDc😀", string(ev.Model), "surrogate escapes decode as they always did")
}

func TestIntegerMatchesLegacy(t *testing.T) {
	nums := []string{"0", "-0", "1", "-1", "3.0", "3e0", "1e18", "1e19", "9.2e18", "9.21e18", "-9.2e18", "0.07e2", "1.1e1",
		"9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
		"123456789012345678.0", "1234567890123456789.0", "0.000000000000000001e18", "1e400", "-1e400", "1e-400",
		"100000000000000000000e-2", "12345678901234567e0", "1.2345678901234567e16"}
	var p fastjson.Parser
	for _, n := range nums {
		val, err := p.Parse(n)
		require.NoError(t, err)
		wn, wok := legacyInteger(val)
		num := integrity.Slot{End: len(n), Kind: integrity.JSONNumber}
		gn, gok := num.Int([]byte(n))
		assert.Equal(t, wok, gok, n)
		assert.Equal(t, wn, gn, n)
	}
}

func TestKindOfEveryKind(t *testing.T) {
	for k := KindSessionStart; k < kindCount; k++ {
		assert.Equal(t, k, KindOf([]byte(k.String())))
	}
	assert.Equal(t, KindUnknown, KindOf(nil))
}

// TestValidateAllocatesNothingOnSamples extends TestValidateAllocatesNothing
// to realistic lines of every type, escapes included.
func TestValidateAllocatesNothingOnSamples(t *testing.T) {
	v, err := NewValidator(DefaultConfig())
	require.NoError(t, err)
	lines := cortexsample.Lines(3, 300)
	a := integrity.NewArena(1 << 20)
	var ev Event
	for _, l := range lines { // warm up: scratch buffers reach their size
		v.Validate(l, false, a, &ev)
	}
	allocs := testing.AllocsPerRun(20, func() {
		a.Reset(1 << 20)
		for _, l := range lines {
			v.Validate(l, false, a, &ev)
		}
	})
	assert.Zero(t, allocs)
}

// legacyReasons maps the reasons that were refined since the old validator
// back to its wording: an integer beyond int64 was "must be an integer".
func legacyReasons(vs []integrity.Violation) []integrity.Violation {
	for i := range vs {
		if vs[i].Reason == reasonOutOfRange {
			vs[i].Reason = reasonNotInteger
		}
	}
	return vs
}
