package promproc

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/common/model"
)

// maxBody bounds an answer read from the HTTP API.
const maxBody = 32 << 20

// maxErrorText bounds the error text kept in a QueryError.
const maxErrorText = 4096

// httpClient is used for every API call.
var httpClient = &http.Client{Timeout: 30 * time.Second}

// Sample is one element of an instant vector (or a scalar, with an empty
// Metric).
type Sample struct {
	Metric map[string]string
	Time   time.Time
	Value  float64
}

// apiAnswer is the envelope of /api/v1 answers.
type apiAnswer struct {
	Status    string          `json:"status"`
	ErrorType string          `json:"errorType"`
	Error     string          `json:"error"`
	Data      json.RawMessage `json:"data"`
}

// Query evaluates expr at the instant at (kept to the millisecond, as
// Prometheus stores samples) with GET /api/v1/query and returns the vector
// or scalar, sorted by metric labels. An error answer is a *QueryError.
func (p *Prometheus) Query(ctx context.Context, expr string, at time.Time) ([]Sample, error) {
	params := url.Values{"query": {expr}, "time": {FormatTime(at)}}
	data, err := p.get(ctx, expr, "/api/v1/query", params)
	if err != nil {
		return nil, err
	}
	var res struct {
		ResultType string          `json:"resultType"`
		Result     json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(data, &res); err != nil {
		return nil, &QueryError{Query: expr, Err: fmt.Errorf("decode data: %w", err)}
	}
	out, err := decodeResult(res.ResultType, res.Result)
	if err != nil {
		return nil, &QueryError{Query: expr, Err: err}
	}
	slices.SortFunc(out, func(a, b Sample) int { return strings.Compare(canon(a.Metric), canon(b.Metric)) })
	return out, nil
}

// LabelValues returns the sorted values of label name on the series
// matching match (a series selector; "" for every series) in [start, end],
// as Grafana's label_values(match, name) variable query asks for them.
func (p *Prometheus) LabelValues(ctx context.Context, name, match string, start, end time.Time) ([]string, error) {
	params := url.Values{"start": {FormatTime(start)}, "end": {FormatTime(end)}}
	if match != "" {
		params.Set("match[]", match)
	}
	data, err := p.get(ctx, "label_values("+match+", "+name+")", "/api/v1/label/"+url.PathEscape(name)+"/values", params)
	if err != nil {
		return nil, err
	}
	var vals []string
	if err := json.Unmarshal(data, &vals); err != nil {
		return nil, &QueryError{Query: name, Err: fmt.Errorf("decode label values: %w", err)}
	}
	slices.Sort(vals)
	return vals, nil
}

// FormatTime renders t for the HTTP API: RFC 3339 with milliseconds.
func FormatTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z07:00") }

// get performs GET path?params and returns the data of a success answer.
func (p *Prometheus) get(ctx context.Context, what, path string, params url.Values) (json.RawMessage, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.URL+path+"?"+params.Encode(), nil)
	if err != nil {
		return nil, &QueryError{Query: what, Err: err}
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		return nil, &QueryError{Query: what, Err: err}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return nil, &QueryError{Query: what, Status: resp.StatusCode, Err: err}
	}
	var a apiAnswer
	if jerr := json.Unmarshal(body, &a); jerr != nil || resp.StatusCode != http.StatusOK || a.Status != "success" {
		text := a.ErrorType + ": " + a.Error
		if jerr != nil || a.Error == "" {
			text = string(body)
		}
		return nil, &QueryError{Query: what, Status: resp.StatusCode, Body: bound(text)}
	}
	return a.Data, nil
}

func bound(s string) string {
	if len(s) > maxErrorText {
		return s[:maxErrorText] + "…"
	}
	return s
}

// decodeResult parses a vector or scalar result.
func decodeResult(typ string, raw json.RawMessage) ([]Sample, error) {
	switch typ {
	case "vector":
		var vec []struct {
			Metric map[string]string `json:"metric"`
			Value  json.RawMessage   `json:"value"`
		}
		if err := json.Unmarshal(raw, &vec); err != nil {
			return nil, fmt.Errorf("decode vector: %w", err)
		}
		out := make([]Sample, 0, len(vec))
		for i, v := range vec {
			s, err := decodePoint(v.Value)
			if err != nil {
				return nil, fmt.Errorf("vector[%d]: %w", i, err)
			}
			s.Metric = v.Metric
			out = append(out, s)
		}
		return out, nil
	case "scalar":
		s, err := decodePoint(raw)
		if err != nil {
			return nil, fmt.Errorf("scalar: %w", err)
		}
		return []Sample{s}, nil
	}
	return nil, fmt.Errorf("result type %q, want vector or scalar", typ)
}

// decodePoint parses [<unix seconds>, "<value>"].
func decodePoint(raw json.RawMessage) (Sample, error) {
	var pair []json.RawMessage
	if err := json.Unmarshal(raw, &pair); err != nil || len(pair) != 2 {
		return Sample{}, fmt.Errorf("point %s is not [time, value]", raw)
	}
	var ts float64
	var val string
	if err := json.Unmarshal(pair[0], &ts); err != nil {
		return Sample{}, fmt.Errorf("point time: %w", err)
	}
	if err := json.Unmarshal(pair[1], &val); err != nil {
		return Sample{}, fmt.Errorf("point value: %w", err)
	}
	v, err := strconv.ParseFloat(val, 64)
	if err != nil {
		return Sample{}, fmt.Errorf("point value: %w", err)
	}
	return Sample{Time: time.UnixMilli(int64(ts*1000 + 0.5)).UTC(), Value: v, Metric: map[string]string{}}, nil
}

// canon renders m as Prometheus renders a label set: sorted, quoted.
func canon(m map[string]string) string {
	ls := make(model.LabelSet, len(m))
	for k, v := range m {
		ls[model.LabelName(k)] = model.LabelValue(v)
	}
	return ls.String()
}
