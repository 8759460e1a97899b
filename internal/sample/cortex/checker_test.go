package cortex

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"regexp"
	"strconv"
	"time"
	"unicode/utf8"
)

// This file is an independent, deliberately naive reading of the v1 JSON
// Schema of spike #31: it parses with encoding/json into map[string]any and
// checks required fields, types, enums, formats and lengths. It shares no
// code with the generator, so tests can check the generator's truth with it.

// verdict is what the checker thinks of one line.
type verdict struct {
	corrupt bool
	unknown bool
	invalid string // why the line breaks the schema, "" if it does not
	typ     string
	seq     int64 // -1 when absent or not an integer >= 0
	obj     map[string]any
}

func (v verdict) valid() bool { return !v.corrupt && !v.unknown && v.invalid == "" }

type rule func(v any, present bool) string

var (
	uuidRe = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
	hashRe = regexp.MustCompile(`^[a-f0-9]{64}$`)
)

func isNull(v any) bool { return v == nil }

func asInt(v any) (int64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	i, err := strconv.ParseInt(n.String(), 10, 64)
	return i, err == nil
}

func rString(maxLen, minLen int) rule {
	return func(v any, _ bool) string {
		s, ok := v.(string)
		switch {
		case !ok:
			return "not a string"
		case utf8.RuneCountInString(s) < minLen:
			return "too short"
		case maxLen > 0 && utf8.RuneCountInString(s) > maxLen:
			return "maxLength " + strconv.Itoa(maxLen)
		}
		return ""
	}
}

func rPattern(re *regexp.Regexp, name string) rule {
	return func(v any, _ bool) string {
		if s, ok := v.(string); !ok || !re.MatchString(s) {
			return "format " + name
		}
		return ""
	}
}

func rDateTime(v any, _ bool) string {
	s, ok := v.(string)
	if !ok {
		return "format date-time"
	}
	if _, err := time.Parse(time.RFC3339Nano, s); err != nil {
		return "format date-time"
	}
	return ""
}

func rInt(minimum int64) rule {
	return func(v any, _ bool) string {
		if i, ok := asInt(v); !ok || i < minimum {
			return "integer >= " + strconv.FormatInt(minimum, 10)
		}
		return ""
	}
}

func rBool(v any, _ bool) string {
	if _, ok := v.(bool); !ok {
		return "not a boolean"
	}
	return ""
}

func rEnum(values ...string) rule {
	return func(v any, _ bool) string {
		s, _ := v.(string)
		for _, e := range values {
			if s == e {
				return ""
			}
		}
		return "enum"
	}
}

func orNull(r rule) rule {
	return func(v any, p bool) string {
		if isNull(v) {
			return ""
		}
		return r(v, p)
	}
}

type typeSchema struct {
	required []string
	fields   map[string]rule
}

var (
	rUUID = rPattern(uuidRe, "uuid")
	rHash = rPattern(hashRe, "sha256")

	baseFields = map[string]rule{
		"type": rString(0, 1), "timestamp": rDateTime, "job_id": rUUID, "session_id": rUUID, "seq": rInt(0),
	}
	baseRequired = []string{"type", "timestamp", "job_id", "session_id"}
	withSeq      = []string{"type", "timestamp", "job_id", "session_id", "seq"}

	schemas = map[string]typeSchema{
		"SESSION_START": {append(withSeq, "buffer_schema_version", "agent_id", "pod_name"), map[string]rule{
			"buffer_schema_version": rInt(1), "agent_id": rUUID, "pod_name": rString(0, 0), "worker_job_id": orNull(rString(0, 0))}},
		"CHECKPOINT_LOADED": {append(withSeq, "checkpoint_id", "step_index"), map[string]rule{
			"checkpoint_id": orNull(rUUID), "step_index": orNull(rInt(0)), "schema_version": orNull(rInt(-1 << 62))}},
		"LLM_REQUEST": {append(withSeq, "model", "step_index"), map[string]rule{
			"model": rString(0, 0), "step_index": rInt(0), "prompt_hash": rHash, "message_count": rInt(1)}},
		"LLM_RESPONSE": {append(withSeq, "step_index", "prompt_tokens", "completion_tokens", "finish_reason"), map[string]rule{
			"step_index": rInt(0), "prompt_tokens": rInt(0), "completion_tokens": rInt(0),
			"finish_reason": rEnum("end_turn", "tool_use", "max_tokens", "stop_sequence"), "tool_use_count": rInt(0), "duration_ms": rInt(0)}},
		"TOOL_START": {append(withSeq, "invocation_id", "tool_name", "input_hash"), map[string]rule{
			"invocation_id": rUUID, "tool_name": rString(0, 1), "input_hash": rHash, "input_summary": rString(1024, 0), "is_side_effect": rBool}},
		"TOOL_RESULT": {append(withSeq, "invocation_id", "tool_name", "success", "duration_ms"), map[string]rule{
			"invocation_id": rUUID, "tool_name": rString(0, 1), "success": rBool, "duration_ms": rInt(0),
			"result_summary": rString(4096, 0), "error_code": orNull(rString(0, 0))}},
		"CHECKPOINT_WRITTEN": {append(withSeq, "checkpoint_id", "step_index"), map[string]rule{
			"checkpoint_id": rUUID, "step_index": rInt(0), "checkpoint_size_bytes": rInt(0)}},
		"APPROVAL_REQUESTED": {baseRequired, nil},
		"STATE_TRANSITION":   {baseRequired, nil},
		"ERROR":              {baseRequired, nil},
		"SESSION_END": {append(withSeq, "reason", "total_events"), map[string]rule{
			"reason": rEnum("completed", "failed", "approval_pause", "cancelled"), "total_events": rInt(0), "final_step_index": rInt(0)}},
	}
)

// check reads one line (without its newline) the way the spec's scanner
// and schema do.
func check(text string) verdict {
	v := verdict{seq: -1}
	dec := json.NewDecoder(bytes.NewReader([]byte(text)))
	dec.UseNumber()
	var top any
	if err := dec.Decode(&top); err != nil {
		v.corrupt = true
		return v
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		v.corrupt = true // trailing data after the first value
		return v
	}
	obj, ok := top.(map[string]any)
	if !ok {
		v.corrupt = true
		return v
	}
	typ, ok1 := obj["type"].(string)
	_, ok2 := obj["timestamp"].(string)
	if !ok1 || !ok2 {
		v.corrupt = true
		return v
	}
	v.typ, v.obj = typ, obj
	if s, ok := asInt(obj["seq"]); ok && s >= 0 {
		v.seq = s
	}
	sch, known := schemas[typ]
	if !known {
		v.unknown = true
		return v
	}
	v.invalid = checkFields(obj, sch)
	return v
}

func checkFields(obj map[string]any, sch typeSchema) string {
	for _, f := range sch.required {
		if _, ok := obj[f]; !ok {
			return "missing " + f
		}
	}
	for _, rules := range []map[string]rule{baseFields, sch.fields} {
		for name, r := range rules {
			if val, ok := obj[name]; ok {
				if why := r(val, true); why != "" {
					return name + ": " + why
				}
			}
		}
	}
	return ""
}
