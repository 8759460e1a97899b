package grafana

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/journalship/journalship/internal/lokiquery"
	"github.com/journalship/journalship/internal/promproc"
)

// series is one element of a metric answer: an instant vector's sample, or
// a range query's series with its points summed (a time series panel's
// total over the range: the windows of sum_over_time/count_over_time
// [$__auto] at step $__auto tile the range, so the sum is the range's
// total).
type series struct {
	labels map[string]string
	value  float64
	points int
}

// empty reports whether the answer holds nothing.
func (a answer) empty() bool { return len(a.series) == 0 && len(a.entries) == 0 }

// answer is what a query returned.
type answer struct {
	series  []series
	entries []lokiquery.Entry
	log     bool
}

// query is one interpolated target, ready to run.
type query struct {
	where   string // dashboard / panel / refId, for messages
	dsType  string
	expr    string
	instant bool
	logs    bool
	limit   int
	dir     string
	at      time.Time // Prometheus: the evaluation time
}

// run executes q against the world's Loki or Prometheus, as Grafana would.
func (w *world) run(ctx context.Context, sc scenario, q query) (answer, error) {
	switch {
	case q.dsType == "prometheus":
		samples, err := w.prom.Query(ctx, q.expr, q.at)
		return answer{series: fromProm(samples)}, err
	case q.logs:
		es, err := w.lq.QueryRange(ctx, q.expr, sc.from, sc.to, q.limit, q.dir)
		if err == nil && len(es) >= q.limit {
			err = fmt.Errorf("%d entries reach the panel's maxLines %d: Grafana would show a cut trail", len(es), q.limit)
		}
		return answer{entries: es, log: true}, err
	case q.instant:
		samples, err := w.lq.Instant(ctx, q.expr, sc.to)
		var out []series
		for _, s := range samples {
			out = append(out, series{labels: s.Metric, value: s.Value, points: 1})
		}
		return answer{series: out}, err
	}
	out, err := lokiMatrix(ctx, w.loki.URL, q.expr, sc.from, sc.to, sc.lokiStep())
	return answer{series: out}, err
}

func fromProm(samples []promproc.Sample) []series {
	out := make([]series, 0, len(samples))
	for _, s := range samples {
		out = append(out, series{labels: s.Metric, value: s.Value, points: 1})
	}
	return out
}

// lokiMatrix runs a metric range query (GET /loki/api/v1/query_range with
// a step, as Grafana's time series panels do) and sums each series' points.
func lokiMatrix(ctx context.Context, base, expr string, from, to time.Time, step time.Duration) ([]series, error) {
	params := url.Values{"query": {expr}, "start": {strconv.FormatInt(from.UnixNano(), 10)},
		"end": {strconv.FormatInt(to.UnixNano(), 10)}, "step": {strconv.FormatFloat(step.Seconds(), 'f', -1, 64)}}
	var body struct {
		Status string `json:"status"`
		Data   struct {
			ResultType string `json:"resultType"`
			Result     []struct {
				Metric map[string]string `json:"metric"`
				Values [][2]any          `json:"values"`
			} `json:"result"`
		} `json:"data"`
	}
	if err := getJSON(ctx, base+"/loki/api/v1/query_range?"+params.Encode(), &body); err != nil {
		return nil, err
	}
	if body.Data.ResultType != "matrix" {
		return nil, fmt.Errorf("result type %q, want matrix", body.Data.ResultType)
	}
	var out []series
	for _, r := range body.Data.Result {
		s := series{labels: r.Metric}
		for _, v := range r.Values {
			str, _ := v[1].(string)
			f, err := strconv.ParseFloat(str, 64)
			if err != nil {
				return nil, fmt.Errorf("point %v: %w", v, err)
			}
			s.value += f
			s.points++
		}
		out = append(out, s)
	}
	return out, nil
}

// lokiLabelValues answers a Loki label-values variable query.
func lokiLabelValues(ctx context.Context, base, label, stream string, from, to time.Time) ([]string, error) {
	params := url.Values{"query": {stream}, "start": {strconv.FormatInt(from.UnixNano(), 10)}, "end": {strconv.FormatInt(to.UnixNano(), 10)}}
	var body struct {
		Status string   `json:"status"`
		Data   []string `json:"data"`
	}
	if err := getJSON(ctx, base+"/loki/api/v1/label/"+url.PathEscape(label)+"/values?"+params.Encode(), &body); err != nil {
		return nil, err
	}
	slices.Sort(body.Data)
	return body.Data, nil
}

func getJSON(ctx context.Context, u string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("HTTP %d: %s", resp.StatusCode, strings.TrimSpace(string(data)))
	}
	return json.Unmarshal(data, v)
}

// want is what a metric query must return: one series per key of values,
// identified by the by labels and nothing else.
type want struct {
	by     []string
	values map[string]float64
	// zeros: series not in values may be returned with the value 0 (counter
	// series created at zero).
	zeros bool
	// tol is the relative tolerance, for sums of dollars (float rounding
	// of sums in a different order); 0 compares exactly.
	tol float64
	// logs checks a log query's entries instead.
	logs func(es []lokiquery.Entry) error
}

// single is the want of a query returning one unlabelled number.
func single(v float64) want { return want{values: map[string]float64{"": v}} }

// check compares an answer with the want; the error says what differs.
func (wt want) check(a answer) error {
	if wt.logs != nil {
		if !a.log {
			return fmt.Errorf("a metric answer where log entries were expected")
		}
		return wt.logs(a.entries)
	}
	if a.log {
		return fmt.Errorf("log entries where a metric was expected")
	}
	if len(a.series) == 0 && len(wt.values) > 0 {
		return fmt.Errorf("nothing returned, want %s", fmtValues(wt.values))
	}
	got := map[string]float64{}
	for _, s := range a.series {
		extra := []string{}
		for l := range s.labels {
			if !slices.Contains(wt.by, l) {
				extra = append(extra, l)
			}
		}
		if len(extra) > 0 {
			return fmt.Errorf("series %v has labels %v beyond %v", s.labels, extra, wt.by)
		}
		vals := make([]string, len(wt.by))
		for i, l := range wt.by {
			vals[i] = s.labels[l]
		}
		k := key(vals...)
		if _, dup := got[k]; dup {
			return fmt.Errorf("two series for %q", k)
		}
		got[k] = s.value
	}
	var diffs []string
	for k, v := range wt.values {
		g, ok := got[k]
		if !ok && !(wt.zeros && v == 0) {
			diffs = append(diffs, fmt.Sprintf("%q: missing, want %v", k, v))
		} else if ok && !near(g, v, wt.tol) {
			diffs = append(diffs, fmt.Sprintf("%q: got %v, want %v", k, g, v))
		}
	}
	for k, g := range got {
		if _, ok := wt.values[k]; !ok && !(wt.zeros && g == 0) {
			diffs = append(diffs, fmt.Sprintf("%q: got %v, want no such series", k, g))
		}
	}
	if len(diffs) > 0 {
		sort.Strings(diffs)
		return fmt.Errorf("%s (by %v)", strings.Join(diffs, "; "), wt.by)
	}
	return nil
}

func near(got, want, tol float64) bool {
	if tol == 0 {
		return got == want
	}
	return math.Abs(got-want) <= tol*math.Max(1, math.Abs(want))
}

func fmtValues(m map[string]float64) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%q=%v", k, m[k])
	}
	return "{" + strings.Join(parts, ", ") + "}"
}
