package grafana

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// This file interpolates queries the way Grafana 11/12 does before they
// reach Loki or Prometheus: dashboard variables, then the built-in
// $__interval, $__range, $__auto and $__rate_interval.
//
//   - Grafana's panel interval is (to-from)/maxDataPoints rounded to a
//     "nice" value (rangeutil.roundInterval), at least the data source's
//     minimum (Prometheus: its scrape interval, timeInterval).
//   - Loki (pkg/tsdb/loki/parse_query.go): $__range is the range in whole
//     seconds + "s"; $__interval the interval; $__auto is $__range in an
//     instant query and the step in a range query, the step being
//     max(interval, range/11000) rounded up to the millisecond.
//   - Prometheus: $__range as Loki's; $__rate_interval is
//     max($__interval + scrape interval, 4 × scrape interval) in seconds.
//   - A variable's value is inserted as is when it is single-valued; a
//     multi-value or include-all variable is regex-escaped, several values
//     become (a|b), and "All" becomes its allValue.

// scenario is one dashboard view: a time range, the panel resolution and
// the variables' selected values.
type scenario struct {
	name       string
	from, to   time.Time
	dataPoints int                 // Grafana's maxDataPoints (the panel's width in pixels)
	vars       map[string][]string // selected values; a variable absent here keeps its current value; nil = All
	scrape     time.Duration       // the Prometheus data source's timeInterval
}

// rangeDur is the time range's length.
func (s scenario) rangeDur() time.Duration { return s.to.Sub(s.from) }

// rangeSeconds is the range in whole seconds, rounded as Grafana does.
func (s scenario) rangeSeconds() int64 {
	return int64(math.Round(float64(s.rangeDur().Milliseconds()) / 1000))
}

// interval is Grafana's panel interval with the given lower limit.
func (s scenario) interval(low time.Duration) time.Duration {
	ms := roundInterval(float64(s.rangeDur().Milliseconds()) / float64(s.dataPoints))
	iv := time.Duration(ms) * time.Millisecond
	return max(iv, low)
}

// lokiStep is the step of a Loki range query (pkg/tsdb/loki/step.go).
func (s scenario) lokiStep() time.Duration {
	step := max(s.interval(time.Millisecond), s.rangeDur()/11000)
	return time.Duration(math.Ceil(float64(step)/float64(time.Millisecond))) * time.Millisecond
}

// rateInterval is Prometheus's $__rate_interval.
func (s scenario) rateInterval() time.Duration {
	iv := s.interval(s.scrape)
	return max(iv+s.scrape, 4*s.scrape).Truncate(time.Second)
}

// roundInterval is @grafana/data's rangeutil.roundInterval (milliseconds).
func roundInterval(ms float64) int64 {
	ladder := []struct{ below, to int64 }{
		{10, 1}, {15, 10}, {35, 20}, {75, 50}, {150, 100}, {350, 200}, {750, 500},
		{1500, 1000}, {3500, 2000}, {7500, 5000}, {12500, 10000}, {17500, 15000},
		{25000, 20000}, {45000, 30000}, {90000, 60000}, {210000, 120000},
		{450000, 300000}, {750000, 600000}, {1050000, 900000}, {1500000, 1200000},
		{2700000, 1800000}, {5400000, 3600000}, {9000000, 7200000}, {16200000, 10800000},
		{32400000, 21600000}, {86400000, 43200000}, {172800000, 86400000},
		{604800000, 86400000}, {1814400000, 604800000}, {3628800000, 2592000000},
	}
	for _, r := range ladder {
		if ms < float64(r.below) {
			return r.to
		}
	}
	return 31536000000
}

// formatInterval renders d in its largest whole unit, as Grafana's
// gtime.FormatInterval and rangeutil.secondsToHms do.
func formatInterval(d time.Duration) string {
	day := 24 * time.Hour
	units := []struct {
		size time.Duration
		name string
	}{{365 * day, "y"}, {day, "d"}, {time.Hour, "h"}, {time.Minute, "m"}, {time.Second, "s"}, {time.Millisecond, "ms"}}
	for _, u := range units {
		if d >= u.size {
			return strconv.FormatInt(int64(d/u.size), 10) + u.name
		}
	}
	return "1ms"
}

// parseDuration reads a Grafana/Prometheus duration such as 15s, 10m, 1h.
func parseDuration(s string) (time.Duration, error) {
	m := regexp.MustCompile(`^(\d+)(ms|s|m|h|d|w|y)$`).FindStringSubmatch(s)
	if m == nil {
		return 0, fmt.Errorf("%q is not a duration like 15s", s)
	}
	n, _ := strconv.ParseInt(m[1], 10, 64)
	unit := map[string]time.Duration{"ms": time.Millisecond, "s": time.Second, "m": time.Minute, "h": time.Hour,
		"d": 24 * time.Hour, "w": 7 * 24 * time.Hour, "y": 365 * 24 * time.Hour}[m[2]]
	return time.Duration(n) * unit, nil
}

// builtins are the values of Grafana's global variables for one query.
func (s scenario) builtins(dsType string, instant bool) map[string]string {
	rs := strconv.FormatInt(s.rangeSeconds(), 10)
	b := map[string]string{"__range": rs + "s", "__range_s": rs, "__range_ms": strconv.FormatInt(s.rangeDur().Milliseconds(), 10)}
	switch dsType {
	case "loki":
		iv := s.interval(time.Millisecond)
		b["__interval"], b["__interval_ms"] = formatInterval(iv), strconv.FormatInt(iv.Milliseconds(), 10)
		b["__auto"] = formatInterval(s.lokiStep())
		if instant {
			b["__auto"] = rs + "s"
		}
	case "prometheus":
		iv := s.interval(s.scrape)
		b["__interval"], b["__interval_ms"] = formatInterval(iv), strconv.FormatInt(iv.Milliseconds(), 10)
		b["__rate_interval"] = strconv.FormatInt(int64(s.rateInterval()/time.Second), 10) + "s"
	}
	return b
}

// varRef matches $name, ${name} and ${name:format} (formats are refused).
var varRef = regexp.MustCompile(`\$\{([A-Za-z0-9_.]+)(:[^}]*)?\}|\$([A-Za-z0-9_]+)`)

// interpolate replaces every variable of expr for a query of data source
// type dsType. An undefined variable is an error.
func (s scenario) interpolate(d *Dashboard, expr, dsType string, instant bool) (string, error) {
	builtins := s.builtins(dsType, instant)
	var errs []string
	out := varRef.ReplaceAllStringFunc(expr, func(ref string) string {
		m := varRef.FindStringSubmatch(ref)
		name := m[1] + m[3]
		if m[2] != "" {
			errs = append(errs, ref+": variable formats are not used by these dashboards")
			return ref
		}
		if v, ok := builtins[name]; ok {
			return v
		}
		v := d.variable(name)
		if v == nil {
			errs = append(errs, ref+": no such variable")
			return ref
		}
		val, err := s.value(v, dsType)
		if err != nil {
			errs = append(errs, ref+": "+err.Error())
		}
		return val
	})
	if len(errs) > 0 {
		return "", fmt.Errorf("interpolating %q: %s", expr, strings.Join(errs, "; "))
	}
	return out, nil
}

// value renders variable v's selected value for dsType.
func (s scenario) value(v *Variable, dsType string) (string, error) {
	vals, chosen := s.vars[v.Name]
	if !chosen {
		cur, err := v.currentValues()
		if err != nil {
			return "", err
		}
		vals = cur
	}
	all := vals == nil || (len(vals) == 1 && vals[0] == "$__all")
	switch {
	case all && v.IncludeAll && v.AllValue != "":
		return v.AllValue, nil
	case all:
		return "", fmt.Errorf("All is selected but the variable has no allValue (Grafana would list every option)")
	case !v.Multi && !v.IncludeAll:
		if len(vals) != 1 {
			return "", fmt.Errorf("%d values for a single-value variable", len(vals))
		}
		return strings.ReplaceAll(vals[0], "'", `\\'`), nil
	}
	esc := make([]string, len(vals))
	for i, x := range vals {
		esc[i] = regexEscape(x, dsType)
	}
	if len(esc) == 1 {
		return esc[0], nil
	}
	return "(" + strings.Join(esc, "|") + ")", nil
}

// regexEscape is Grafana's lokiSpecialRegexEscape and
// prometheusSpecialRegexEscape: metacharacters get a backslash, doubled
// for the query language's string quoting.
func regexEscape(s, dsType string) string {
	meta := `$^*{}[]+?.()|`
	if dsType == "prometheus" {
		meta += `'`
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\\\\`)
		case strings.ContainsRune(meta, r):
			b.WriteString(`\\` + string(r))
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// currentValues is the variable's saved current value(s).
func (v *Variable) currentValues() ([]string, error) {
	var one string
	if err := json.Unmarshal(v.Current.Value, &one); err == nil {
		return []string{one}, nil
	}
	var many []string
	if err := json.Unmarshal(v.Current.Value, &many); err != nil {
		return nil, fmt.Errorf("variable %s: current value %s is neither a string nor a list", v.Name, v.Current.Value)
	}
	return many, nil
}
