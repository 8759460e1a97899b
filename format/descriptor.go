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
	// End is how the runtime says a session is over (EndLine when unset).
	End End
	// Unit is what retention deletes together (UnitFile when unset).
	Unit Unit
	// Deploy is where the shipped deployments find the format's journals
	// on a node.
	Deploy Deploy
}

// Deploy says where the shipped deployments (fluent-bit.conf, the
// DaemonSet and docker compose) find a format's journals on a node. Their
// tail inputs, format roots, retention roots and journal mounts are
// generated from it: go test ./deploy -run TestGenerated -update. The
// format's tail input has the Tag sessions.<Name>.
type Deploy struct {
	// Root is the directory of the runtime's journals on a node, under
	// /data: the format's Format_Roots root, swept by retention. Where a
	// team has a directory of its own, its root is the same below it
	// (/data/team-a/sessions for /data/sessions).
	Root string
	// Paths are the tail input's glob patterns, relative to Root: they
	// match every layout of Layouts (but those found by content alone)
	// and none of NotTailed. The directory each starts from (its part
	// before the first wildcard) is what the containers mount.
	Paths []string
	// DB is the tail input's offset database, a file name in
	// /var/lib/journalship; empty: tail-<Name>.db.
	DB string
	// About is the tail input's comment after the Runtime and the Doc:
	// where the journals lie, naming the root as Root (a team's copy
	// names its own), and what the Paths leave out and why.
	About string
	// NotTailed are examples of the files the runtime keeps under Root
	// that are not journals (snapshots rewritten in place, indexes,
	// settings, credentials), relative to Root, with Layouts'
	// placeholders: no tail input may read one.
	NotTailed []string
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
