package promproc

import (
	"encoding/json"
	"fmt"
	"time"
)

// promConfig renders the Prometheus configuration file. It is JSON, which
// Prometheus's YAML parser reads as YAML, so no YAML library is needed.
func promConfig(targets []Target, interval time.Duration) ([]byte, error) {
	iv := fmt.Sprintf("%dms", interval.Milliseconds())
	jobs := make([]any, 0, len(targets))
	for _, t := range targets {
		jobs = append(jobs, map[string]any{
			"job_name":        t.Job,
			"scrape_interval": iv,
			"scrape_timeout":  iv,
			"metrics_path":    t.Path,
			"static_configs":  []any{map[string]any{"targets": []string{t.Addr}}},
		})
	}
	doc := map[string]any{
		"global":         map[string]any{"scrape_interval": iv, "scrape_timeout": iv, "evaluation_interval": iv},
		"scrape_configs": jobs,
	}
	return json.MarshalIndent(doc, "", "  ")
}
