package cortex

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// Reasons the runtime's reader (parseLine, docs/formats/cortex-plane.md
// section 6) refuses a line the shipper's validator judged otherwise.
const (
	reasonNotJSON   = "not JSON"
	reasonNotObject = "not a JSON object"
	reasonNoType    = `no string "type"`
	reasonNoTime    = `no string "timestamp"`
	reasonDupType   = `duplicate "type": the last value is not a string`
	reasonDupTime   = `duplicate "timestamp": the last value is not a string`
)

// Reread implements format.Rereader with the runtime's parseLine:
// JSON.parse must accept the line and yield an object whose "type" and
// "timestamp" (the last of duplicate keys, as in JavaScript) are strings.
// Node decodes invalid UTF-8 as U+FFFD, so the view is the line with those
// bytes replaced. It allocates; verify calls it only on lines where the
// validator and the runtime may disagree.
func (*Format) Reread(line []byte, accepted bool) ([]byte, string, bool) {
	reason, notJSON := parseLine(line)
	if accepted {
		// The validator found a string type and timestamp, so a refusal
		// here is about a later duplicate of the key.
		switch reason {
		case reasonNoType:
			reason = reasonDupType
		case reasonNoTime:
			reason = reasonDupTime
		}
	}
	if reason != "" || utf8.Valid(line) {
		return line, reason, notJSON
	}
	return bytes.ToValidUTF8(line, []byte("\uFFFD")), "", false
}

func parseLine(t []byte) (reason string, notJSON bool) {
	if !json.Valid(t) {
		return reasonNotJSON, true
	}
	if t[0] != '{' {
		return reasonNotObject, true
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(t, &obj); err != nil {
		return reasonNotJSON, true
	}
	if v, ok := obj["type"]; !ok || !isJSONString(v) {
		return reasonNoType, false
	}
	if v, ok := obj["timestamp"]; !ok || !isJSONString(v) {
		return reasonNoTime, false
	}
	return "", false
}

func isJSONString(v json.RawMessage) bool {
	v = bytes.TrimLeft(v, " \t\r\n")
	return len(v) > 0 && v[0] == '"'
}
