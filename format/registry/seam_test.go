package registry

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// debt lists the places outside a format's package that still name its
// event types, each "path: literal or constant". The 28 places from
// before the seam (the Cortex Plane schema in package integrity, the
// audit's recovery rules, SESSION_END checks, verify's token cross-check,
// the dashboards) are all paid: it is empty and may only stay so (the
// test fails on a paid entry left in it).
var debt = map[string]bool{}

// homonyms are literals outside a format's package that spell one of its
// event types but mean something else, each with what it means. Go
// pkg/session's event types are common words ("metadata", "transcript",
// "checkpoint"), and so are some of Codex CLI's ("message", "error",
// "state").
var homonyms = map[string]string{
	"chunk/decode.go: metadata":                         "the metadata part of a Fluent Bit record, in an error message",
	"format/event.go: checkpoint":                       "the neutral role every format's checkpoints ship with",
	"format/event.go: message":                          "the neutral role of a message",
	"format/event.go: error":                            "the neutral role of an error",
	"cmd/journalship/demo_report.go: state":             "the state metadata key",
	"internal/verify/verify.go: state":                  "the state metadata key",
	"pipeline/layout.go: state":                         "the state metadata key",
	"deploy/grafana/dashboards/audit-trail.json: error": "the neutral role error, and a log level",
	"flbconf/check.go: error":                           "a problem's severity",
	"loki/metrics.go: error":                            "the status class of a request with no answer",
	"output/log.go: error":                              "a log level",
	"retention/log.go: error":                           "a log level",
}

// TestNothingOutsideAFormatNamesItsEventTypes: the pipeline, verify, the
// finalizer, retention, the metrics and the dashboards work on the neutral
// event; only a format's own package (format/<name>/) and the sample
// generators (internal/sample, which write each format's journals) name
// its event types.
func TestNothingOutsideAFormatNamesItsEventTypes(t *testing.T) {
	types := map[string]string{}
	for _, f := range All() {
		for _, et := range f.EventTypes() {
			types[et] = f.Name()
		}
	}
	root := repoRoot(t)
	var found []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			// testdata holds fixtures and their generators, not the product
			// (a Loki push fixture's structured metadata "user" is no
			// Claude Code event type).
			if rel == "tools" || rel == "bin" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") || rel == filepath.Join("internal", "sample") || owned(rel) {
				return filepath.SkipDir
			}
			return nil
		}
		switch {
		case strings.HasSuffix(path, "_test.go"):
		case strings.HasSuffix(path, ".go"):
			found = append(found, goLiterals(t, path, rel, types)...)
		case strings.HasSuffix(path, ".json") && strings.Contains(rel, "dashboards"):
			found = append(found, jsonMentions(t, path, rel, types)...)
		}
		return nil
	})
	require.NoError(t, err)
	var fresh []string
	for _, f := range found {
		if _, ok := homonyms[f]; !ok && !debt[f] {
			fresh = append(fresh, f)
		}
	}
	assert.Empty(t, fresh, "event types named outside their format's package")
	for d := range debt {
		assert.True(t, slices.Contains(found, d), "debt %q is paid: remove it from the list", d)
	}
	for h := range homonyms {
		assert.True(t, slices.Contains(found, h), "homonym %q is gone: remove it from the list", h)
	}
}

// owned tells whether rel is a format's own package.
func owned(rel string) bool {
	parts := strings.Split(rel, string(filepath.Separator))
	return len(parts) >= 2 && parts[0] == "format" && parts[1] != "registry"
}

func goLiterals(t *testing.T, path, rel string, types map[string]string) []string {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	require.NoError(t, err, path)
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		// The Cortex Plane kinds, by their constants in package integrity.
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if x, ok := sel.X.(*ast.Ident); ok && x.Name == "integrity" && strings.HasPrefix(sel.Sel.Name, "Kind") && sel.Sel.Name != "KindOf" {
				out = append(out, rel+": integrity."+sel.Sel.Name)
			}
			return true
		}
		lit, ok := n.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return true
		}
		if s, err := strconv.Unquote(lit.Value); err == nil && types[s] != "" {
			out = append(out, rel+": "+s)
		}
		return true
	})
	return out
}

func jsonMentions(t *testing.T, path, rel string, types map[string]string) []string {
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var out []string
	for et := range types {
		if strings.Contains(string(b), `\"`+et+`\"`) || strings.Contains(string(b), `"`+et+`"`) {
			out = append(out, rel+": "+et)
		}
	}
	return out
}

func repoRoot(t *testing.T) string {
	dir, err := os.Getwd()
	require.NoError(t, err)
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		require.NotEqual(t, parent, dir, "no go.mod above the test")
		dir = parent
	}
}
