package grafana

import (
	"encoding/json"
	"testing"
	"time"
)

// TestInterpolationAsGrafana pins the interpolation rules to values
// Grafana produces for the same view.
func TestInterpolationAsGrafana(t *testing.T) {
	to := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	sc := scenario{from: to.Add(-48 * time.Hour), to: to, dataPoints: 1000, scrape: 15 * time.Second,
		vars: map[string][]string{"job": {"j-1"}, "node": {"a.b", "c"}, "tenant": nil, "format": {"codelia", "orbitmesh"}}}
	all, _ := json.Marshal([]string{"$__all"})
	d := &Dashboard{Templating: Templating{List: []Variable{
		{Name: "job", Type: "textbox", Current: VariableOption{Value: json.RawMessage(`""`)}},
		{Name: "node", Type: "query", Multi: true, IncludeAll: true, AllValue: ".+"},
		{Name: "tenant", Type: "query", Multi: true, IncludeAll: true, AllValue: ".*", Current: VariableOption{Value: all}},
		{Name: "format", Type: "query", Multi: true, IncludeAll: true, AllValue: ".+", Current: VariableOption{Value: all}},
	}}}
	allFormats := sc
	allFormats.vars = map[string][]string{"job": {"j-1"}}
	cases := []struct {
		expr, ds string
		instant  bool
		want     string
	}{
		// 48h / 1000 px = 172.8s, rounded to 2m; step max(2m, 48h/11000).
		{`[$__interval] [$__auto] [$__range] $__range_s`, "loki", false, `[2m] [2m] [172800s] 172800`},
		{`[$__auto]`, "loki", true, `[172800s]`},
		// max(2m + 15s, 4 × 15s)
		{`[$__rate_interval] [$__interval]`, "prometheus", false, `[135s] [2m]`},
		{`job_id="$job" node=~"${node}" tenant=~"$tenant"`, "loki", true, `job_id="j-1" node=~"(a\\.b|c)" tenant=~".*"`},
		{`{format=~"$format"}`, "loki", true, `{format=~"(codelia|orbitmesh)"}`},
	}
	for _, c := range cases {
		got, err := sc.interpolate(d, c.expr, c.ds, c.instant)
		if err != nil || got != c.want {
			t.Errorf("%s (%s): got %q, %v; want %q", c.expr, c.ds, got, err, c.want)
		}
	}
	// Format: several selected, and its default, All.
	if got, err := allFormats.interpolate(d, `{format=~"$format"}`, "loki", true); err != nil || got != `{format=~".+"}` {
		t.Errorf("format All: got %q, %v; want .+", got, err)
	}
	if _, err := sc.interpolate(d, `$nope`, "loki", true); err == nil {
		t.Error("an undefined variable interpolated without error")
	}
	if got := formatInterval(90 * time.Second); got != "1m" {
		t.Errorf("formatInterval(90s) = %q, want 1m (largest whole unit, as Grafana)", got)
	}
}
