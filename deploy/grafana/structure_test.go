package grafana

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// panelTypes are the panel plugins these dashboards may use (core Grafana).
var panelTypes = map[string]bool{"row": true, "stat": true, "table": true, "timeseries": true, "logs": true, "bargauge": true}

// builtinVars are Grafana's global variables and data-link variables.
var builtinVars = map[string]bool{"__interval": true, "__interval_ms": true, "__range": true, "__range_s": true,
	"__range_ms": true, "__auto": true, "__rate_interval": true, "__value.raw": true, "__url_time_range": true}

func TestDashboardsStructure(t *testing.T) {
	ds := loadDatasources(t)
	dashes := loadDashboards(t)
	uids, titles := map[string]*Dashboard{}, map[string]bool{}
	for _, d := range dashes {
		if d.UID == "" || uids[d.UID] != nil || titles[d.Title] || d.Title == "" {
			t.Errorf("%s: uid %q / title %q missing or not unique", d.file, d.UID, d.Title)
		}
		uids[d.UID], titles[d.Title] = d, true
	}
	for _, d := range dashes {
		t.Run(d.file, func(t *testing.T) {
			checkDashboard(t, d, ds, uids)
		})
	}
}

func checkDashboard(t *testing.T, d *Dashboard, ds map[string]Datasource, uids map[string]*Dashboard) {
	if d.SchemaVersion < 39 || d.ID != nil || len(d.Tags) == 0 || !strings.HasPrefix(d.Time.From, "now-") || d.Time.To != "now" {
		t.Errorf("schemaVersion %d (want >= 39), id %v (want null), tags %v, time %+v", d.SchemaVersion, d.ID, d.Tags, d.Time)
	}
	for _, l := range d.Links {
		checkURL(t, "dashboard link "+l.Title, l.URL, uids)
	}
	checkVariables(t, d, ds)
	checkLayout(t, d)
	ids := map[int]bool{}
	for _, p := range d.Panels {
		if ids[p.ID] {
			t.Errorf("panel id %d twice", p.ID)
		}
		ids[p.ID] = true
		if p.Type == "row" && len(p.Panels) > 0 && (p.Collapsed == nil || !*p.Collapsed) {
			t.Errorf("row %q holds panels but is not collapsed", p.Title)
		}
	}
	titles := map[string]bool{}
	for _, p := range d.allPanels() {
		if titles[p.Title] {
			t.Errorf("panel title %q twice: titles name the panels (and their expectations)", p.Title)
		}
		titles[p.Title] = true
		checkPanel(t, d, p, ds, uids)
	}
}

// checkLayout: every panel (rows too) is placed on the 24-column grid and
// no two overlap.
func checkLayout(t *testing.T, d *Dashboard) {
	var placed []*Panel
	for i := range d.Panels {
		p := &d.Panels[i]
		g := p.GridPos
		if g == nil || g.W < 1 || g.H < 1 || g.X < 0 || g.Y < 0 || g.X+g.W > 24 {
			t.Errorf("panel %q: gridPos %+v is not on the 24-column grid", p.Title, g)
			continue
		}
		for _, q := range placed {
			h := q.GridPos
			if g.X < h.X+h.W && h.X < g.X+g.W && g.Y < h.Y+h.H && h.Y < g.Y+g.H {
				t.Errorf("panels %q %+v and %q %+v overlap", p.Title, *g, q.Title, *h)
			}
		}
		placed = append(placed, p)
	}
}

func checkPanel(t *testing.T, d *Dashboard, p *Panel, ds map[string]Datasource, uids map[string]*Dashboard) {
	where := fmt.Sprintf("panel %d %q", p.ID, p.Title)
	if !panelTypes[p.Type] || p.Title == "" || p.Description == "" {
		t.Errorf("%s: type %q unknown, or no title or description", where, p.Type)
	}
	checkVarsDefined(t, d, where+" title", p.Title)
	dsType, ok := checkDatasource(t, where, p.Datasource, ds)
	if !ok {
		return
	}
	if len(p.Targets) == 0 {
		t.Errorf("%s: no targets", where)
	}
	refs := map[string]bool{}
	for _, tg := range p.Targets {
		tw := fmt.Sprintf("%s target %q", where, tg.RefID)
		if tg.RefID == "" || refs[tg.RefID] || strings.TrimSpace(tg.Expr) == "" {
			t.Errorf("%s: refId empty or repeated, or expr empty", tw)
		}
		refs[tg.RefID] = true
		if tg.Datasource == nil || *tg.Datasource != *p.Datasource {
			t.Errorf("%s: datasource %v differs from the panel's %v", tw, tg.Datasource, p.Datasource)
		}
		checkTarget(t, tw, p, tg, dsType)
		checkWindows(t, tw, tg, dsType)
		checkVarsDefined(t, d, tw, tg.Expr)
		checkBalanced(t, tw, tg.Expr)
	}
	links, err := p.dataLinks()
	if err != nil {
		t.Errorf("%s: %v", where, err)
	}
	for _, l := range links {
		checkURL(t, where+" data link "+l.Title, l.URL, uids)
		checkVarsDefined(t, d, where+" data link", l.URL)
	}
}

// checkDatasource: the reference names a provisioned data source of the
// same type.
func checkDatasource(t *testing.T, where string, ref *DataSourceRef, ds map[string]Datasource) (string, bool) {
	if ref == nil {
		t.Errorf("%s: no datasource", where)
		return "", false
	}
	got, ok := ds[ref.UID]
	if !ok || got.Type != ref.Type {
		t.Errorf("%s: datasource %+v is not a provisioned data source (uid and type)", where, *ref)
		return "", false
	}
	return got.Type, true
}

// checkTarget: Loki targets say instant or range (logs panels: log queries
// in range mode, bounded); Prometheus targets are instant or range.
func checkTarget(t *testing.T, where string, p *Panel, tg Target, dsType string) {
	switch dsType {
	case "loki":
		if tg.QueryType != "instant" && tg.QueryType != "range" || tg.Instant != nil || tg.Range != nil {
			t.Errorf("%s: Loki queryType %q, want instant or range (and no instant/range flags)", where, tg.QueryType)
		}
		logQuery := isLogQuery(tg.Expr)
		if logQuery && (tg.QueryType != "range" || tg.MaxLines <= 0 || (tg.Direction != "forward" && tg.Direction != "backward")) {
			t.Errorf("%s: a log query must be a range query with maxLines and a direction", where)
		}
		if (p.Type == "logs") != logQuery && p.Type != "table" {
			t.Errorf("%s: %s panel with a %s query", where, p.Type, map[bool]string{true: "log", false: "metric"}[logQuery])
		}
	case "prometheus":
		if tg.Instant == nil || tg.Range == nil || *tg.Instant == *tg.Range || tg.QueryType != "" {
			t.Errorf("%s: a Prometheus target must be instant xor range", where)
		}
		if p.Type == "timeseries" && *tg.Instant {
			t.Errorf("%s: a time series of an instant query", where)
		}
	default:
		t.Errorf("%s: data source type %q", where, dsType)
	}
}

// checkWindows: a query evaluated once over the dashboard's range (an
// instant query) takes its windows from $__range (Loki: or $__auto), since
// $__interval and $__rate_interval depend on the panel's width and would
// count only the end of the range; a range query's points take theirs from
// $__interval, $__rate_interval or $__auto, since [$__range] at every step
// would count the whole range again and again. (The query test cannot see
// such a mix-up: its world is younger than any window.)
func checkWindows(t *testing.T, where string, tg Target, dsType string) {
	instant := tg.QueryType == "instant" || (tg.Instant != nil && *tg.Instant)
	for _, w := range rangeWindow.FindAllStringSubmatch(tg.Expr, -1) {
		v := w[1]
		switch {
		case instant && v != "$__range" && !(dsType == "loki" && v == "$__auto"):
			t.Errorf("%s: instant query with window [%s], want [$__range]", where, v)
		case !instant && v == "$__range":
			t.Errorf("%s: range query with window [$__range]: each point would cover the whole range", where)
		case !instant && !isLogQuery(tg.Expr) && v != "$__interval" && v != "$__rate_interval" && v != "$__auto":
			t.Errorf("%s: range query with a fixed window [%s]", where, v)
		}
	}
}

// rangeWindow matches the window of a range vector: [5m], [$__range].
var rangeWindow = regexp.MustCompile(`\[([^\]]+)\]`)

// isLogQuery reports whether a LogQL expression selects log lines rather
// than computing a metric: it starts with a stream selector.
func isLogQuery(expr string) bool { return strings.HasPrefix(strings.TrimSpace(expr), "{") }

// checkVarsDefined: every $var in s is a variable of d or a built-in.
func checkVarsDefined(t *testing.T, d *Dashboard, where, s string) {
	for _, m := range varRef.FindAllStringSubmatch(s, -1) {
		name := m[1] + m[3]
		if !builtinVars[name] && d.variable(name) == nil {
			t.Errorf("%s: $%s is not a variable of the dashboard", where, name)
		}
	}
}

// checkBalanced: brackets, braces and parentheses pair up outside quotes.
func checkBalanced(t *testing.T, where, expr string) {
	var stack []rune
	pairs := map[rune]rune{')': '(', ']': '[', '}': '{'}
	var quote rune
	for i, r := range expr {
		switch {
		case quote != 0:
			if r == quote && (quote == '`' || expr[i-1] != '\\') {
				quote = 0
			}
		case r == '"' || r == '`':
			quote = r
		case r == '(' || r == '[' || r == '{':
			stack = append(stack, r)
		case pairs[r] != 0:
			if len(stack) == 0 || stack[len(stack)-1] != pairs[r] {
				t.Errorf("%s: unbalanced %q at %d in %s", where, r, i, expr)
				return
			}
			stack = stack[:len(stack)-1]
		}
	}
	if len(stack) > 0 || quote != 0 {
		t.Errorf("%s: unclosed %q in %s", where, append(stack, quote), expr)
	}
}

var dashURL = regexp.MustCompile(`^/d/([a-z0-9-]+)/([a-z0-9-]+)(\?(.*))?$`)

// checkURL: a link goes to a provisioned dashboard and sets only its
// variables.
func checkURL(t *testing.T, where, u string, uids map[string]*Dashboard) {
	m := dashURL.FindStringSubmatch(u)
	if m == nil {
		t.Errorf("%s: %q is not a /d/<uid>/<slug> link", where, u)
		return
	}
	target := uids[m[1]]
	if target == nil {
		t.Errorf("%s: no dashboard with uid %q", where, m[1])
		return
	}
	for _, part := range strings.Split(m[4], "&") {
		name, _, _ := strings.Cut(part, "=")
		if v, ok := strings.CutPrefix(name, "var-"); ok && target.variable(v) == nil {
			t.Errorf("%s: sets var-%s, which %s does not have", where, v, target.UID)
		}
		if _, err := url.QueryUnescape(part); err != nil {
			t.Errorf("%s: %v", where, err)
		}
	}
}

// checkVariables: names unique, types known, query variables' queries
// decode and name a provisioned data source; include-all variables have
// an allValue; the current value is well-formed.
func checkVariables(t *testing.T, d *Dashboard, ds map[string]Datasource) {
	seen := map[string]bool{}
	for i := range d.Templating.List {
		v := &d.Templating.List[i]
		where := "variable " + v.Name
		if v.Name == "" || seen[v.Name] || builtinVars[v.Name] || v.Label == "" || v.Description == "" {
			t.Errorf("%s: name empty, repeated or reserved, or no label or description", where)
		}
		seen[v.Name] = true
		if _, err := v.currentValues(); err != nil {
			t.Errorf("%s: %v", where, err)
		}
		if v.IncludeAll && v.AllValue == "" {
			t.Errorf("%s: include-all without allValue", where)
		}
		switch v.Type {
		case "textbox", "custom":
			if v.Datasource != nil {
				t.Errorf("%s: a %s variable has no data source", where, v.Type)
			}
		case "query":
			checkQueryVariable(t, where, v, ds)
		default:
			t.Errorf("%s: type %q", where, v.Type)
		}
	}
}

func checkQueryVariable(t *testing.T, where string, v *Variable, ds map[string]Datasource) {
	dsType, ok := checkDatasource(t, where, v.Datasource, ds)
	if !ok {
		return
	}
	if v.Refresh != 1 && v.Refresh != 2 {
		t.Errorf("%s: refresh %d, want on load (1) or on time range change (2)", where, v.Refresh)
	}
	switch dsType {
	case "loki":
		q, err := lokiVarQuery(v)
		if err != nil {
			t.Errorf("%s: %v", where, err)
		} else if want := "label_values(" + q.Stream + ", " + q.Label + ")"; v.Definition != want {
			t.Errorf("%s: definition %q does not say what the query does (%q)", where, v.Definition, want)
		}
	case "prometheus":
		q, err := promVarQuery(v)
		if err != nil {
			t.Errorf("%s: %v", where, err)
		} else if v.Definition != q.Query {
			t.Errorf("%s: definition %q differs from the query %q", where, v.Definition, q.Query)
		}
	}
}

// lokiVarQuery decodes a Loki label-values variable query.
func lokiVarQuery(v *Variable) (LokiVariableQuery, error) {
	var q LokiVariableQuery
	if err := strictDecode(v.Query, &q); err != nil {
		return q, fmt.Errorf("Loki variable query: %w", err)
	}
	if q.Type != 1 || q.Label == "" || !isLogQuery(q.Stream) || q.RefID == "" {
		return q, fmt.Errorf("Loki variable query %+v: want type 1 (label values) with a label and a stream selector", q)
	}
	return q, nil
}

var labelValuesCall = regexp.MustCompile(`^label_values\(\s*([a-zA-Z_:][a-zA-Z0-9_:]*(?:\{[^}]*\})?)\s*,\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*\)$`)

// promVarQuery decodes a Prometheus label_values(series, label) query.
func promVarQuery(v *Variable) (PromVariableQuery, error) {
	var q PromVariableQuery
	if err := strictDecode(v.Query, &q); err != nil {
		return q, fmt.Errorf("Prometheus variable query: %w", err)
	}
	if q.QryType != 1 || q.RefID == "" || !labelValuesCall.MatchString(q.Query) {
		return q, fmt.Errorf("Prometheus variable query %+v: want qryType 1 and label_values(series, label)", q)
	}
	return q, nil
}

// streamSelector matches a LogQL stream selector: {name op "value", ...}
// (line_format templates, {{...}}, are not selectors).
var streamSelector = regexp.MustCompile(`\{(?:\s*[a-zA-Z_][a-zA-Z0-9_]*\s*(?:=~|!~|!=|=)\s*"(?:[^"\\]|\\.)*"\s*,?)+\s*\}`)

// formatMatcher is the matcher every Loki query's stream selector has.
const formatMatcher = `format=~"$format"`

// TestEveryLokiQuerySelectsFormat: every dashboard has the Format variable
// (the format label's values, several at once, All by default), and every
// stream selector of every Loki target selects format=~"$format", so one
// set of panels serves every journal format and narrows to any of them.
func TestEveryLokiQuerySelectsFormat(t *testing.T) {
	for _, d := range loadDashboards(t) {
		t.Run(d.file, func(t *testing.T) {
			checkFormatVariable(t, d)
			for _, p := range d.allPanels() {
				for _, tg := range p.Targets {
					if p.Datasource == nil || p.Datasource.Type != "loki" {
						continue
					}
					sels := streamSelector.FindAllString(tg.Expr, -1)
					if len(sels) == 0 {
						t.Errorf("%s / %s: no stream selector in %s", p.Title, tg.RefID, tg.Expr)
					}
					for _, s := range sels {
						if !strings.Contains(s, formatMatcher) {
							t.Errorf("%s / %s: stream selector %s does not select %s", p.Title, tg.RefID, s, formatMatcher)
						}
					}
				}
			}
		})
	}
}

// checkFormatVariable: the dashboard's format variable lists the format
// label's values, multi-valued with All (every format) by default.
func checkFormatVariable(t *testing.T, d *Dashboard) {
	v := d.variable("format")
	if v == nil {
		t.Fatalf("no format variable")
	}
	q, err := lokiVarQuery(v)
	cur, cerr := v.currentValues()
	switch {
	case err != nil || cerr != nil:
		t.Errorf("format variable: %v %v", err, cerr)
	case v.Type != "query" || q.Label != "format" || q.Stream != `{service_name="agent-sessions"}`:
		t.Errorf("format variable: type %q, label_values(%s, %s), want a Loki query of the format label's values", v.Type, q.Stream, q.Label)
	case !v.Multi || !v.IncludeAll || v.AllValue != ".+" || len(cur) != 1 || cur[0] != "$__all":
		t.Errorf("format variable: multi %v, includeAll %v, allValue %q, current %v; want several values, All (.+) by default", v.Multi, v.IncludeAll, v.AllValue, cur)
	}
}

// eventTypeMatcher matches an event_type matcher of a selector or label
// filter, and an event_type comparison of a template.
var eventTypeMatcher = regexp.MustCompile(`event_type\s*(?:=~|!~|!=|=)\s*"([^"]*)"|eq \.event_type \\?"([^"\\]*)`)

// ownEntries are the event_type values journalship writes itself, in every
// format: the only ones a query may name.
var ownEntries = []string{"file_summary", "truncated_tail"}

// TestQueriesNameNoEventType: no query selects or compares a format's event
// types; lines are told apart by the neutral role (format/registry's seam
// test checks the dashboards for every format's types too).
func TestQueriesNameNoEventType(t *testing.T) {
	for _, d := range loadDashboards(t) {
		for _, p := range d.allPanels() {
			for _, tg := range p.Targets {
				for _, m := range eventTypeMatcher.FindAllStringSubmatch(tg.Expr, -1) {
					for _, v := range strings.Split(m[1]+m[2], "|") {
						if !slices.Contains(ownEntries, v) {
							t.Errorf("%s / %s / %s: names event type %q (%s); select by role instead", d.file, p.Title, tg.RefID, v, m[0])
						}
					}
				}
			}
		}
	}
}

// TestStreamSelectorFindsSelectors pins the two patterns the format and
// event type checks read queries with.
func TestStreamSelectorFindsSelectors(t *testing.T) {
	expr := "sum by (job) (count_over_time({service_name=\"a\", format=~\"$format\", event_type!~\"x|y\"} | role=\"error\" | label_format job=`{{or .job_id .run_id}}` | line_format `{{if .a}}{{.b}}{{end}}` [1m]))"
	got := streamSelector.FindAllString(expr, -1)
	want := []string{`{service_name="a", format=~"$format", event_type!~"x|y"}`}
	if !slices.Equal(got, want) {
		t.Errorf("selectors %q, want %q (templates are not selectors)", got, want)
	}
	if m := eventTypeMatcher.FindAllStringSubmatch(`{event_type="A"} | line_format `+"`"+`{{if eq .event_type "B"}}`+"`", -1); len(m) != 2 || m[0][1] != "A" || m[1][2] != "B" {
		t.Errorf("event_type matchers %q, want A and B", m)
	}
}
