package registry

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/journalship/journalship/format"
)

var update = flag.Bool("update", false, "rewrite the parts of README.md and docs/formats.md made from the registry")

// TestDocsListTheFormats: the README's list of formats and the table of
// docs/formats.md are made from the registered descriptors and formats;
// -update rewrites them.
func TestDocsListTheFormats(t *testing.T) {
	root := repoRoot(t)
	generated(t, filepath.Join(root, "README.md"), "formats list", readmeList())
	generated(t, filepath.Join(root, "docs", "formats.md"), "formats table", formatsTable())
}

// generated checks (or, with -update, rewrites) the part of the file at
// path between the markers of what.
func generated(t *testing.T, path, what, body string) {
	t.Helper()
	begin := fmt.Sprintf("<!-- The %s is generated from format/registry: go test ./format/registry -run TestDocs -update -->\n", what)
	end := fmt.Sprintf("<!-- End of the generated %s. -->\n", what)
	doc, err := os.ReadFile(path)
	require.NoError(t, err)
	before, rest, ok := strings.Cut(string(doc), begin)
	require.True(t, ok, "%s: no %q", path, begin)
	_, after, ok := strings.Cut(rest, end)
	require.True(t, ok, "%s: no %q", path, end)
	want := before + begin + body + end + after
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(want), 0o644))
		return
	}
	assert.Equal(t, want, string(doc), "%s is stale: go test ./format/registry -run TestDocs -update", path)
}

// readmeList is one line per format, with a link to its document.
func readmeList() string {
	var b strings.Builder
	for _, d := range Descriptors() {
		fmt.Fprintf(&b, "- `%s` — [%s](%s)\n", d.Name, d.Runtime, d.Doc)
	}
	fmt.Fprintf(&b, "- `%s` — any other file, shipped with each line checked as JSON\n", Unknown.Name())
	return b.String()
}

// formatsTable is docs/formats.md's table: each format's runtime and
// layouts, event types and own annotations.
func formatsTable() string {
	var b strings.Builder
	b.WriteString("| `format` | Runtime and layouts | Over by; deleted as | `event_type` values | Its own annotations |\n|---|---|---|---|---|\n")
	for _, d := range Descriptors() {
		f := Lookup(d.Name)
		fmt.Fprintf(&b, "| `%s` | [%s](%s): %s | %s; %s | %s | %s |\n", d.Name, d.Runtime, strings.TrimPrefix(d.Doc, "docs/"),
			layouts(f), d.End, d.Unit, cell(f.EventTypes(), true), annotations(f))
	}
	fmt.Fprintf(&b, "| `%s` | any other file | nothing (retention's max age); %s | %s | — |\n", Unknown.Name(), format.UnitFile, cell(Unknown.EventTypes(), true))
	return b.String()
}

// layouts are a format's layouts, each template as code and what it
// says in parentheses as text.
func layouts(f format.Format) string {
	out := make([]string, 0, len(f.Layouts()))
	for _, l := range f.Layouts() {
		tmpl, rest, ok := strings.Cut(l, " (")
		if strings.HasPrefix(tmpl, "any ") { // a layout found by content: prose
			out = append(out, l)
			continue
		}
		l = "`" + tmpl + "`"
		if ok {
			l += " (" + rest
		}
		out = append(out, l)
	}
	return cell(out, false)
}

func annotations(f format.Format) string {
	if len(f.Annotations()) == 0 {
		return "the shared ones ([loki.md](loki.md#annotations))"
	}
	return cell(f.Annotations(), true)
}

// cell joins values for a table cell, as code when code.
func cell(values []string, code bool) string {
	out := make([]string, len(values))
	for i, v := range values {
		v = strings.ReplaceAll(v, "|", `\|`)
		if code {
			v = "`" + v + "`"
		}
		out[i] = v
	}
	if code {
		return strings.Join(out, ", ")
	}
	return strings.Join(out, "; ")
}
