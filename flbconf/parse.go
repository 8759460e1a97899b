// Package flbconf reads Fluent Bit configuration files, classic and YAML,
// and checks the sections that use journalship: Fluent Bit checks no key
// of a Go plugin's section, so a misspelt key is otherwise silently
// ignored (`Loki_Ulr` would ship to the default address). `journalship
// check-config` runs it, the container runs that before Fluent Bit, and the
// tests run it on every shipped configuration.
package flbconf

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Entry is one key and value of a section, with its line.
type Entry struct {
	Key, Value string
	Line       int
}

// Section is one [SERVICE], [INPUT] or [OUTPUT] (classic), or one item of
// YAML's service, pipeline.inputs or pipeline.outputs.
type Section struct {
	Kind    string // "SERVICE", "INPUT", "OUTPUT", "FILTER", ...
	Line    int
	Entries []Entry // in file order, repeats included
}

// Get returns the first value of key (case-insensitive, as Fluent Bit) and
// whether it is set.
func (s Section) Get(key string) (string, bool) {
	for _, e := range s.Entries {
		if strings.EqualFold(e.Key, key) {
			return e.Value, true
		}
	}
	return "", false
}

// Plugin is the section's Name, lower case.
func (s Section) Plugin() string {
	n, _ := s.Get("Name")
	return strings.ToLower(n)
}

// File is a parsed configuration.
type File struct {
	Path     string
	Sections []Section
}

// Parse reads a configuration, YAML when path ends in .yaml or .yml,
// classic otherwise.
func Parse(path string, data []byte) (*File, error) {
	if ext := strings.ToLower(filepath.Ext(path)); ext == ".yaml" || ext == ".yml" {
		return parseYAML(path, data)
	}
	return parseClassic(path, data)
}

// parseClassic reads the classic format: [SECTION] headers, indented
// `Key value` entries, # comments, @INCLUDE and @SET lines (kept out of
// the sections; an included file is not read).
func parseClassic(path string, data []byte) (*File, error) {
	f := &File{Path: path}
	for i, raw := range strings.Split(string(data), "\n") {
		line := strings.TrimSpace(strings.TrimSuffix(raw, "\r"))
		switch {
		case line == "", strings.HasPrefix(line, "#"), strings.HasPrefix(line, "@"):
			continue
		case strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]"):
			f.Sections = append(f.Sections, Section{Kind: strings.ToUpper(strings.TrimSpace(line[1 : len(line)-1])), Line: i + 1})
			continue
		case len(f.Sections) == 0:
			return nil, fmt.Errorf("%s:%d: %q is outside a section", path, i+1, line)
		}
		key, value, _ := strings.Cut(strings.Join(strings.Fields(line), " "), " ")
		s := &f.Sections[len(f.Sections)-1]
		s.Entries = append(s.Entries, Entry{Key: key, Value: value, Line: i + 1})
	}
	return f, nil
}

// parseYAML reads Fluent Bit's YAML format: service (a mapping) and
// pipeline.inputs, .filters, .outputs (lists of mappings). Repeated keys
// are kept, as in classic files, for the checks to report.
func parseYAML(path string, data []byte) (*File, error) {
	var doc yaml.Node
	if err := yaml.NewDecoder(bytes.NewReader(data)).Decode(&doc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	f := &File{Path: path}
	if len(doc.Content) == 0 {
		return f, nil
	}
	root := doc.Content[0]
	for k := 0; k+1 < len(root.Content); k += 2 {
		switch strings.ToLower(root.Content[k].Value) {
		case "service":
			f.Sections = append(f.Sections, yamlSection("SERVICE", root.Content[k+1]))
		case "pipeline":
			f.Sections = append(f.Sections, yamlPipeline(root.Content[k+1])...)
		}
	}
	return f, nil
}

func yamlPipeline(n *yaml.Node) []Section {
	var out []Section
	for k := 0; k+1 < len(n.Content); k += 2 {
		kind := strings.ToUpper(strings.TrimSuffix(n.Content[k].Value, "s")) // inputs -> INPUT
		for _, item := range n.Content[k+1].Content {
			out = append(out, yamlSection(kind, item))
		}
	}
	return out
}

func yamlSection(kind string, n *yaml.Node) Section {
	s := Section{Kind: kind, Line: n.Line}
	for k := 0; k+1 < len(n.Content); k += 2 {
		key, val := n.Content[k], n.Content[k+1]
		s.Entries = append(s.Entries, Entry{Key: key.Value, Value: val.Value, Line: key.Line})
	}
	return s
}
