// Package secretsample holds real secret formats for tests: the true and
// false positives Gitleaks validates each of its rules with (its
// cmd/generate/config/rules, generated secrets frozen), with what Gitleaks
// reports for each, and a way to put a secret into a journal line where a
// runtime would write one.
package secretsample

import (
	_ "embed" // gitleaks_examples.json
	"encoding/json"
	"strings"
	"sync"
)

//go:embed gitleaks_examples.json
var examplesJSON []byte

// Example is a true or false positive a Gitleaks rule is validated with.
type Example struct {
	Rule    string   `json:"rule"`
	Sample  string   `json:"sample"`
	Secrets []string `json:"secrets"` // what the rule alone reports
	// Gitleaks is what Gitleaks with its default rules reports.
	Gitleaks []Found `json:"gitleaks"`
}

// Found is one finding Gitleaks reports.
type Found struct {
	Rule   string `json:"rule"`
	Secret string `json:"secret"`
}

var examples = sync.OnceValues(func() (tps, fps []Example) {
	var v struct {
		TP []Example `json:"true_positives"`
		FP []Example `json:"false_positives"`
	}
	if err := json.Unmarshal(examplesJSON, &v); err != nil {
		panic("secretsample: " + err.Error()) // embedded: a broken file is a build defect
	}
	return v.TP, v.FP
})

// TruePositives returns the examples each rule must find.
func TruePositives() []Example { tps, _ := examples(); return tps }

// FalsePositives returns the examples each rule must leave alone.
func FalsePositives() []Example { _, fps := examples(); return fps }

// Of returns the true positives of rule whose sample Gitleaks' default
// rules report under that rule (so a test can expect it by name).
func Of(rule string) []Example {
	var out []Example
	for _, e := range TruePositives() {
		if e.Rule != rule {
			continue
		}
		for _, f := range e.Gitleaks {
			if f.Rule == rule && strings.Contains(e.Sample, f.Secret) {
				out = append(out, e)
				break
			}
		}
	}
	return out
}
