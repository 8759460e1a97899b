package grafana

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// The types below are the parts of Grafana's dashboard JSON (schema 39+)
// these dashboards use. Decoding is strict: a field not declared here is an
// error, so a misspelled key (gridpos, datasource.UID, refid) cannot pass
// unnoticed. Panel options and field defaults, which differ per panel type,
// are kept raw; the parts the tests rely on (links, overrides) are typed.

// Dashboard is one dashboard file.
type Dashboard struct {
	Annotations          Annotations     `json:"annotations"`
	Description          string          `json:"description"`
	Editable             bool            `json:"editable"`
	FiscalYearStartMonth int             `json:"fiscalYearStartMonth"`
	GraphTooltip         int             `json:"graphTooltip"`
	ID                   *int            `json:"id"`
	Links                []DashboardLink `json:"links"`
	Panels               []Panel         `json:"panels"`
	Refresh              string          `json:"refresh"`
	SchemaVersion        int             `json:"schemaVersion"`
	Tags                 []string        `json:"tags"`
	Templating           Templating      `json:"templating"`
	Time                 TimeRange       `json:"time"`
	Timepicker           map[string]any  `json:"timepicker"`
	Timezone             string          `json:"timezone"`
	Title                string          `json:"title"`
	UID                  string          `json:"uid"`
	Version              int             `json:"version"`
	WeekStart            string          `json:"weekStart"`
	file                 string          // file name, for messages
}

// Annotations is the dashboard's annotation queries (none here).
type Annotations struct {
	List []json.RawMessage `json:"list"`
}

// DashboardLink is a link in the dashboard's header.
type DashboardLink struct {
	AsDropdown  bool     `json:"asDropdown"`
	Icon        string   `json:"icon"`
	IncludeVars bool     `json:"includeVars"`
	KeepTime    bool     `json:"keepTime"`
	Tags        []string `json:"tags"`
	TargetBlank bool     `json:"targetBlank"`
	Title       string   `json:"title"`
	Tooltip     string   `json:"tooltip"`
	Type        string   `json:"type"`
	URL         string   `json:"url"`
}

// Templating holds the template variables.
type Templating struct {
	List []Variable `json:"list"`
}

// TimeRange is the dashboard's default time range.
type TimeRange struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// DataSourceRef names a data source by type and uid.
type DataSourceRef struct {
	Type string `json:"type"`
	UID  string `json:"uid"`
}

// GridPos places a panel on the 24-column grid.
type GridPos struct {
	H int `json:"h"`
	W int `json:"w"`
	X int `json:"x"`
	Y int `json:"y"`
}

// Panel is one panel (or row).
type Panel struct {
	Collapsed       *bool            `json:"collapsed,omitempty"`
	Datasource      *DataSourceRef   `json:"datasource,omitempty"`
	Description     string           `json:"description,omitempty"`
	FieldConfig     *FieldConfig     `json:"fieldConfig,omitempty"`
	GridPos         *GridPos         `json:"gridPos"`
	ID              int              `json:"id"`
	Options         json.RawMessage  `json:"options,omitempty"`
	Panels          []Panel          `json:"panels,omitempty"`
	Targets         []Target         `json:"targets,omitempty"`
	Title           string           `json:"title"`
	Transformations []Transformation `json:"transformations,omitempty"`
	Type            string           `json:"type"`
}

// FieldConfig holds the panel's field defaults (kept raw) and overrides.
type FieldConfig struct {
	Defaults  json.RawMessage `json:"defaults"`
	Overrides []Override      `json:"overrides"`
}

// Override changes properties of the fields a matcher selects.
type Override struct {
	Matcher    Matcher    `json:"matcher"`
	Properties []Property `json:"properties"`
}

// Matcher selects fields, e.g. {"id":"byName","options":"job_id"}.
type Matcher struct {
	ID      string `json:"id"`
	Options string `json:"options"`
}

// Property is one overridden property; links are decoded by DataLinks.
type Property struct {
	ID    string          `json:"id"`
	Value json.RawMessage `json:"value"`
}

// DataLink is a link on a field's values.
type DataLink struct {
	TargetBlank bool   `json:"targetBlank"`
	Title       string `json:"title"`
	URL         string `json:"url"`
}

// Transformation is one data transformation of a panel.
type Transformation struct {
	ID      string          `json:"id"`
	Options json.RawMessage `json:"options"`
}

// Target is one query of a panel: a Loki query (queryType, maxLines,
// direction) or a Prometheus one (instant, range).
type Target struct {
	Datasource   *DataSourceRef `json:"datasource"`
	Direction    string         `json:"direction,omitempty"`
	EditorMode   string         `json:"editorMode,omitempty"`
	Expr         string         `json:"expr"`
	Instant      *bool          `json:"instant,omitempty"`
	LegendFormat string         `json:"legendFormat"`
	MaxLines     int            `json:"maxLines,omitempty"`
	QueryType    string         `json:"queryType,omitempty"`
	Range        *bool          `json:"range,omitempty"`
	RefID        string         `json:"refId"`
}

// Variable is a template variable: textbox, custom or query.
type Variable struct {
	AllValue    string           `json:"allValue,omitempty"`
	Current     VariableOption   `json:"current"`
	Datasource  *DataSourceRef   `json:"datasource,omitempty"`
	Definition  string           `json:"definition,omitempty"`
	Description string           `json:"description"`
	Hide        int              `json:"hide"`
	IncludeAll  bool             `json:"includeAll,omitempty"`
	Label       string           `json:"label"`
	Multi       bool             `json:"multi,omitempty"`
	Name        string           `json:"name"`
	Options     []VariableOption `json:"options"`
	Query       json.RawMessage  `json:"query"`
	Refresh     int              `json:"refresh,omitempty"`
	Regex       string           `json:"regex,omitempty"`
	SkipURLSync bool             `json:"skipUrlSync,omitempty"`
	Sort        int              `json:"sort,omitempty"`
	Type        string           `json:"type"`
}

// VariableOption is a variable's current value or one of its options.
type VariableOption struct {
	Selected bool            `json:"selected"`
	Text     json.RawMessage `json:"text"`
	Value    json.RawMessage `json:"value"`
}

// LokiVariableQuery is the query of a Loki query variable (type 1 = label
// values of Label in the streams Stream selects).
type LokiVariableQuery struct {
	Label  string `json:"label"`
	RefID  string `json:"refId"`
	Stream string `json:"stream"`
	Type   int    `json:"type"`
}

// PromVariableQuery is the query of a Prometheus query variable.
type PromVariableQuery struct {
	QryType int    `json:"qryType"`
	Query   string `json:"query"`
	RefID   string `json:"refId"`
}

// dashboardFiles are the dashboards the deployment provisions.
var dashboardFiles = []string{"audit-trail.json", "cost.json", "pipeline-health.json"}

// strictDecode decodes exactly one JSON value into v, refusing unknown
// fields.
func strictDecode(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("trailing data after the JSON value")
	}
	return exactKeys(data, reflect.TypeOf(v))
}

// loadDashboards decodes every dashboard file strictly.
func loadDashboards(t testing.TB) []*Dashboard {
	t.Helper()
	var out []*Dashboard
	for _, name := range dashboardFiles {
		data, err := os.ReadFile(filepath.Join("dashboards", name))
		if err != nil {
			t.Fatalf("dashboard %s: %v", name, err)
		}
		d := &Dashboard{file: name}
		if err := strictDecode(data, d); err != nil {
			t.Fatalf("dashboard %s does not decode strictly: %v", name, err)
		}
		out = append(out, d)
	}
	return out
}

// allPanels returns the dashboard's panels, those of collapsed rows
// included, rows left out.
func (d *Dashboard) allPanels() []*Panel {
	var out []*Panel
	var walk func(ps []Panel)
	walk = func(ps []Panel) {
		for i := range ps {
			if ps[i].Type == "row" {
				walk(ps[i].Panels)
				continue
			}
			out = append(out, &ps[i])
		}
	}
	walk(d.Panels)
	return out
}

// variable returns the dashboard's variable name, or nil.
func (d *Dashboard) variable(name string) *Variable {
	for i := range d.Templating.List {
		if d.Templating.List[i].Name == name {
			return &d.Templating.List[i]
		}
	}
	return nil
}

// dataLinks returns the data links of the panel's overrides.
func (p *Panel) dataLinks() ([]DataLink, error) {
	var out []DataLink
	if p.FieldConfig == nil {
		return nil, nil
	}
	for _, o := range p.FieldConfig.Overrides {
		for _, prop := range o.Properties {
			if prop.ID != "links" {
				continue
			}
			var links []DataLink
			if err := strictDecode(prop.Value, &links); err != nil {
				return nil, fmt.Errorf("links of field %q: %w", o.Matcher.Options, err)
			}
			out = append(out, links...)
		}
	}
	return out, nil
}
