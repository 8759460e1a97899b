package format

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Descriptor is what the rest of journalship knows of a format, declared
// once in the format's package and registered with one line in
// format/registry. Detection order, the plugin's settings and their help,
// the CLI's help and the settings reference are all made from the
// registered descriptors.
type Descriptor struct {
	// Name is the format label's value (Format.Name of what New returns).
	Name string
	// Order places the format in detection: of the formats whose layouts
	// claim a path, the lowest Order is tried first, so a format with a
	// more specific layout comes before one with a looser layout.
	Order int
	// Runtime says for people which runtime writes the journals and what
	// one file holds ("Claude Code CLI transcripts, one per session").
	Runtime string
	// Doc is the format's document, relative to the repository's root.
	Doc string
	// Settings are the plugin settings the format owns (a schema version
	// list), beside the plugin's own.
	Settings []Setting
	// New returns the format configured by o (every setting of Settings,
	// set or defaulted); an error names what is wrong.
	New func(o Options) (Format, error)
}

// Options configure a format when it is built.
type Options struct {
	// Settings are the values of the format's settings.
	Settings Settings
	// Now is the clock a format compares times with (a wait's deadline);
	// never nil.
	Now func() time.Time
}

// Setting is one plugin setting (Name_Like_This), with its default as
// written in a configuration and one line of help.
type Setting struct {
	Name    string
	Default string
	Help    string
}

// Settings are setting values by name, as written in a configuration.
type Settings map[string]string

// Build returns d's format configured by values (d's own settings, each
// defaulted when values lacks it) and the clock now (nil: time.Now).
func (d Descriptor) Build(values Settings, now func() time.Time) (Format, error) {
	if now == nil {
		now = time.Now
	}
	own := Settings{}
	for _, s := range d.Settings {
		v, ok := values[s.Name]
		if !ok || strings.TrimSpace(v) == "" {
			v = s.Default
		}
		own[s.Name] = strings.TrimSpace(v)
	}
	f, err := d.New(Options{Settings: own, Now: now})
	if err != nil {
		return nil, fmt.Errorf("format %s: %w", d.Name, err)
	}
	if f.Name() != d.Name {
		return nil, fmt.Errorf("format %s: built a format named %q", d.Name, f.Name())
	}
	return f, nil
}

// Owns tells whether name is one of d's settings.
func (d Descriptor) Owns(name string) bool {
	return slices.ContainsFunc(d.Settings, func(s Setting) bool { return s.Name == name })
}

// ParseVersions parses a setting's list of schema versions ("1,2"): each
// an integer of at least 1, at least one.
func ParseVersions(setting, v string) ([]int64, error) {
	var out []int64
	for _, part := range strings.Split(v, ",") {
		n, err := strconv.ParseInt(strings.TrimSpace(part), 10, 64)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("setting %s: %q is not a list of schema versions (integers from 1)", setting, v)
		}
		out = append(out, n)
	}
	return out, nil
}
