package lokiquery

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"strconv"
	"time"
)

// Result types of Loki's query API.
const (
	ResultStreams = "streams"
	ResultVector  = "vector"
	ResultScalar  = "scalar"
	ResultMatrix  = "matrix"
)

// Entry is one log entry of a query result.
type Entry struct {
	// Time is the entry timestamp (nanosecond precision, UTC).
	Time time.Time
	// Line is the log line, byte for byte.
	Line string
	// Metadata holds the entry's structured metadata and, for queries with
	// a parser stage, its parsed labels. nil when there are none.
	Metadata map[string]string
	// Parsed holds only the parsed labels (also in Metadata). nil when none.
	Parsed map[string]string
	// Stream holds the stream labels. Entries of one stream share the map:
	// treat it as read-only.
	Stream map[string]string
}

// Sample is one element of a vector or scalar result.
type Sample struct {
	Metric map[string]string // empty for a scalar
	Time   time.Time
	Value  float64
}

// envelope is the JSON body of query and query_range answers.
type envelope struct {
	Status string `json:"status"`
	Data   struct {
		ResultType string          `json:"resultType"`
		Result     json.RawMessage `json:"result"`
	} `json:"data"`
}

// streamJSON is one element of a streams result.
type streamJSON struct {
	Stream map[string]string `json:"stream"`
	Values []json.RawMessage `json:"values"`
}

// decodeEnvelope parses body and checks status.
func decodeEnvelope(op string, body []byte) (envelope, error) {
	var env envelope
	if err := json.Unmarshal(body, &env); err != nil {
		return env, &DecodeError{Op: op, Where: "body", Err: err}
	}
	if env.Status != "success" {
		return env, &DecodeError{Op: op, Where: "status", Err: fmt.Errorf("status %q, want \"success\"", env.Status)}
	}
	return env, nil
}

// decodeStreams parses a query_range body whose result type must be streams.
func decodeStreams(op string, body []byte) ([]Entry, error) {
	env, err := decodeEnvelope(op, body)
	if err != nil {
		return nil, err
	}
	if env.Data.ResultType != ResultStreams {
		return nil, &ResultTypeError{Op: op, Want: ResultStreams, Got: env.Data.ResultType}
	}
	var streams []streamJSON
	if err := json.Unmarshal(env.Data.Result, &streams); err != nil {
		return nil, &DecodeError{Op: op, Where: "data.result", Err: err}
	}
	var out []Entry
	for i, s := range streams {
		for j, v := range s.Values {
			e, err := decodeValue(v, s.Stream)
			if err != nil {
				return nil, &DecodeError{Op: op, Where: fmt.Sprintf("data.result[%d].values[%d]", i, j), Err: err}
			}
			out = append(out, e)
		}
	}
	return out, nil
}

// decodeValue parses ["<unix ns>", "<line>"] or ["<unix ns>", "<line>", {...}].
func decodeValue(raw json.RawMessage, stream map[string]string) (Entry, error) {
	var parts []json.RawMessage
	if err := json.Unmarshal(raw, &parts); err != nil {
		return Entry{}, err
	}
	if len(parts) < 2 || len(parts) > 3 {
		return Entry{}, fmt.Errorf("%d elements, want 2 or 3", len(parts))
	}
	e := Entry{Stream: stream}
	var ts string
	if err := json.Unmarshal(parts[0], &ts); err != nil {
		return Entry{}, fmt.Errorf("[0] timestamp: %w", err)
	}
	ns, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return Entry{}, fmt.Errorf("[0] timestamp: %w", err)
	}
	e.Time = time.Unix(0, ns).UTC()
	if err := json.Unmarshal(parts[1], &e.Line); err != nil {
		return Entry{}, fmt.Errorf("[1] line: %w", err)
	}
	if len(parts) == 3 {
		if e.Metadata, e.Parsed, err = decodeLabels(parts[2]); err != nil {
			return Entry{}, fmt.Errorf("[2] labels: %w", err)
		}
	}
	return e, nil
}

// decodeLabels parses the third element of a value. With categorize-labels
// it is {"structuredMetadata":{...},"parsed":{...}} (either key may be
// absent, the object may be empty); without it, a flat {"name":"value"}
// object of structured metadata. Loki's own decoder (pkg/loghttp/entry.go)
// accepts both forms the same way.
func decodeLabels(raw json.RawMessage) (meta, parsed map[string]string, err error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, nil, err
	}
	for k, v := range obj {
		switch {
		case (k == "structuredMetadata" || k == "parsed") && isObject(v):
			var m map[string]string
			if err := json.Unmarshal(v, &m); err != nil {
				return nil, nil, fmt.Errorf("%s: %w", k, err)
			}
			if k == "parsed" {
				parsed = m
			}
			meta = merge(meta, m)
		default:
			var s string
			if err := json.Unmarshal(v, &s); err != nil {
				return nil, nil, fmt.Errorf("%s: %w", k, err)
			}
			meta = merge(meta, map[string]string{k: s})
		}
	}
	return nilIfEmpty(meta), nilIfEmpty(parsed), nil
}

func isObject(v json.RawMessage) bool {
	for _, c := range v {
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		}
		return c == '{'
	}
	return false
}

func merge(dst, src map[string]string) map[string]string {
	if len(src) == 0 {
		return dst
	}
	if dst == nil {
		dst = make(map[string]string, len(src))
	}
	maps.Copy(dst, src)
	return dst
}

func nilIfEmpty(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	return m
}

// decodeSamples parses an instant query body: a vector or a scalar.
func decodeSamples(op string, body []byte) ([]Sample, error) {
	env, err := decodeEnvelope(op, body)
	if err != nil {
		return nil, err
	}
	switch env.Data.ResultType {
	case ResultVector:
		return decodeVector(op, env.Data.Result)
	case ResultScalar:
		s, err := decodePoint(env.Data.Result)
		if err != nil {
			return nil, &DecodeError{Op: op, Where: "data.result", Err: err}
		}
		s.Metric = map[string]string{}
		return []Sample{s}, nil
	default:
		return nil, &ResultTypeError{Op: op, Want: ResultVector + " or " + ResultScalar, Got: env.Data.ResultType}
	}
}

func decodeVector(op string, raw json.RawMessage) ([]Sample, error) {
	var items []struct {
		Metric map[string]string `json:"metric"`
		Value  json.RawMessage   `json:"value"`
	}
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, &DecodeError{Op: op, Where: "data.result", Err: err}
	}
	out := make([]Sample, 0, len(items))
	for i, it := range items {
		s, err := decodePoint(it.Value)
		if err != nil {
			return nil, &DecodeError{Op: op, Where: fmt.Sprintf("data.result[%d].value", i), Err: err}
		}
		s.Metric = it.Metric
		if s.Metric == nil {
			s.Metric = map[string]string{}
		}
		out = append(out, s)
	}
	return out, nil
}

// decodePoint parses [<unix seconds>, "<value>"].
func decodePoint(raw json.RawMessage) (Sample, error) {
	var parts []json.RawMessage
	if err := json.Unmarshal(raw, &parts); err != nil {
		return Sample{}, err
	}
	if len(parts) != 2 {
		return Sample{}, fmt.Errorf("%d elements, want 2", len(parts))
	}
	var secs float64
	if err := json.Unmarshal(parts[0], &secs); err != nil {
		return Sample{}, fmt.Errorf("[0] time: %w", err)
	}
	var val string
	if err := json.Unmarshal(parts[1], &val); err != nil {
		return Sample{}, fmt.Errorf("[1] value: %w", err)
	}
	f, err := strconv.ParseFloat(val, 64)
	if err != nil {
		return Sample{}, fmt.Errorf("[1] value: %w", err)
	}
	ms := int64(math.Round(secs * 1000)) // Loki encodes milliseconds
	return Sample{Time: time.UnixMilli(ms).UTC(), Value: f}, nil
}

// decodeStrings parses a label-values body: {"status":"success","data":[...]}.
func decodeStrings(op string, body []byte) ([]string, error) {
	var env struct {
		Status string    `json:"status"`
		Data   *[]string `json:"data"`
	}
	if err := json.Unmarshal(body, &env); err != nil {
		return nil, &DecodeError{Op: op, Where: "body", Err: err}
	}
	if env.Status != "success" {
		return nil, &DecodeError{Op: op, Where: "status", Err: fmt.Errorf("status %q, want \"success\"", env.Status)}
	}
	if env.Data == nil {
		return nil, nil
	}
	return *env.Data, nil
}
