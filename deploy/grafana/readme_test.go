package grafana

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestREADMEListsEveryQuery keeps README.md's tables in step with the
// dashboards: each panel has its row, and each target's query is quoted
// (line_format and label_format templates elided as `…`).
func TestREADMEListsEveryQuery(t *testing.T) {
	data, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	template := regexp.MustCompile("`[^`]*`")
	for _, d := range loadDashboards(t) {
		if !strings.Contains(readme, "(`"+d.UID+"`)") {
			t.Errorf("README.md has no section for %s", d.UID)
		}
		for _, p := range d.allPanels() {
			if !strings.Contains(readme, "| "+p.Title+" | "+p.Type+" | ") {
				t.Errorf("README.md has no row for panel %q of %s", p.Title, d.UID)
			}
			for _, tg := range p.Targets {
				q := strings.ReplaceAll(template.ReplaceAllString(tg.Expr, "`…`"), "|", `\|`)
				q = strings.ReplaceAll(q, "<", "&lt;")
				if !strings.Contains(readme, "<code>"+q+"</code>") {
					t.Errorf("README.md does not quote %s / %s / %s: %s", d.UID, p.Title, tg.RefID, q)
				}
			}
		}
	}
}
