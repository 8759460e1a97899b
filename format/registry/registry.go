// Package registry is the one place journal formats are registered: the
// list of descriptors in formats.go, one line per format. The plugin and
// the CLI pick a file's format here, from its path, confirmed by its first
// line, unless an explicit choice overrides.
package registry

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/format/unknown"
	"github.com/journalship/journalship/internal/kv"
)

// Descriptors returns the registered formats' descriptors in detection
// order.
func Descriptors() []format.Descriptor { return slices.Clone(descriptors) }

// Describe returns the descriptor of the registered format name; ok is
// false for any other name (the fallback's included).
func Describe(name string) (d format.Descriptor, ok bool) {
	i := slices.IndexFunc(descriptors, func(d format.Descriptor) bool { return d.Name == name })
	if i < 0 {
		return format.Descriptor{}, false
	}
	return descriptors[i], true
}

// EndOf returns how the format named name ends a session (EndLine for a
// name not registered).
func EndOf(name string) format.End {
	d, _ := Describe(name)
	return d.End
}

// descriptors are the registered descriptors, sorted once by Order.
var descriptors = func() []format.Descriptor {
	ds := slices.Clone(registered)
	slices.SortStableFunc(ds, func(a, b format.Descriptor) int { return a.Order - b.Order })
	seen := map[string]string{}
	for _, d := range ds {
		for _, n := range append([]string{d.Name}, settingNames(d)...) {
			if other, dup := seen[n]; dup {
				panic(fmt.Sprintf("registry: %q declared by both %s and %s", n, other, d.Name))
			}
			seen[n] = d.Name
		}
	}
	return ds
}()

func settingNames(d format.Descriptor) []string {
	var out []string
	for _, s := range d.Settings {
		out = append(out, s.Name)
	}
	return out
}

// All returns every registered format with its default configuration, in
// the order detection tries them, without the fallback.
func All() []format.Format {
	formats, _ := build(DefaultConfig())
	return formats
}

// build constructs the formats with their settings, in detection order.
func build(cfg Config) ([]format.Format, error) {
	var out []format.Format
	var errs []error
	for _, d := range descriptors {
		f, err := d.Build(cfg.Settings, cfg.Now)
		errs = append(errs, err)
		out = append(out, f)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}

// Settings returns the settings the registered formats own, in detection
// order of their formats.
func Settings() []format.Setting {
	var out []format.Setting
	for _, d := range descriptors {
		out = append(out, d.Settings...)
	}
	return out
}

// Unknown is the fallback for files no format claims: each line is checked
// as JSON and shipped with format="unknown".
var Unknown format.Format = unknown.New()

// Auto is the Format setting's value that detects each file's format.
const Auto = "auto"

// Config selects how formats are detected.
type Config struct {
	// Format is Auto, or a format's name to judge every file by.
	Format string
	// Roots restricts a format to files under the given directories, by
	// format name; a format without roots claims its layout anywhere.
	Roots map[string][]string
	// Settings are the values of the formats' own settings (Settings()),
	// by name; one not set takes its default.
	Settings format.Settings
	// Now is the clock the formats compare times with; nil: time.Now.
	Now func() time.Time
}

// DefaultConfig detects every format anywhere.
func DefaultConfig() Config {
	return Config{Format: Auto, Roots: map[string][]string{}, Settings: format.Settings{}}
}

// Validate reports an unknown format name, a relative root, or a format
// setting its format refuses.
func (c Config) Validate() error {
	if _, err := build(c); err != nil {
		return err
	}
	for name := range c.Settings {
		if !slices.ContainsFunc(descriptors, func(d format.Descriptor) bool { return d.Owns(name) }) {
			return fmt.Errorf("registry: %q is no format's setting", name)
		}
	}
	if c.Format != Auto && Lookup(c.Format) == nil {
		return fmt.Errorf("registry: unknown format %q (known: %s, or %s)", c.Format, strings.Join(Names(), ", "), Auto)
	}
	for name, roots := range c.Roots {
		if Lookup(name) == nil {
			return fmt.Errorf("registry: roots for unknown format %q (known: %s)", name, strings.Join(Names(), ", "))
		}
		for _, r := range roots {
			if !filepath.IsAbs(r) {
				return fmt.Errorf("registry: root %q of format %s is not an absolute path", r, name)
			}
		}
	}
	return nil
}

// Names lists the registered formats' names, the fallback's last.
func Names() []string {
	var out []string
	for _, f := range All() {
		out = append(out, f.Name())
	}
	return append(out, Unknown.Name())
}

// Lookup returns the format with the given name (the fallback included),
// or nil.
func Lookup(name string) format.Format { return find(All(), name) }

// find returns the format of formats, or the fallback, named name; nil
// when none is.
func find(formats []format.Format, name string) format.Format {
	for _, f := range formats {
		if f.Name() == name {
			return f
		}
	}
	if Unknown.Name() == name {
		return Unknown
	}
	return nil
}

// Registry detects formats. Safe for concurrent use.
type Registry struct {
	cfg     Config
	formats []format.Format
	forced  format.Format
}

// New returns a registry for cfg.
func New(cfg Config) (*Registry, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	formats, err := build(cfg)
	if err != nil {
		return nil, err
	}
	r := &Registry{cfg: cfg, formats: formats}
	if cfg.Format != Auto {
		r.forced = r.Lookup(cfg.Format)
	}
	return r, nil
}

// Lookup returns the registry's format with the given name (the fallback
// included), or nil.
func (r *Registry) Lookup(name string) format.Format { return find(r.formats, name) }

// Formats returns the registry's formats, the fallback last.
func (r *Registry) Formats() []format.Format {
	return append(slices.Clone(r.formats), Unknown)
}

// ErrNoFormat is returned by Explicit for a name no format has.
var ErrNoFormat = errors.New("registry: no such format")

// Explicit returns the format named by an explicit choice (a tag, a flag).
func (r *Registry) Explicit(name string) (format.Format, error) {
	if f := r.Lookup(name); f != nil {
		return f, nil
	}
	return nil, fmt.Errorf("%w: %q (known: %s)", ErrNoFormat, name, strings.Join(Names(), ", "))
}

// Detection is a file's format with what its path says.
type Detection struct {
	Format format.Format
	Path   format.Path
	// How says how the format was chosen: "setting", "path" (confirmed by
	// the first line, or unreadable), "content", "path-unconfirmed" or
	// "fallback".
	How string
}

// Detect picks path's format: the Format setting when it names one; else
// the formats claiming the path (within their roots), the first whose
// Sniff accepts the first line (first may be nil when the file's start
// cannot be read: the first claimant then); else any format whose Sniff
// accepts the first line; else the first claimant; else the fallback.
func (r *Registry) Detect(path string, first []byte) Detection {
	if r.forced != nil {
		p, _ := r.forced.Claim(path)
		p.Format = r.forced.Name()
		return Detection{Format: r.forced, Path: p, How: "setting"}
	}
	var claimants []format.Format
	var paths []format.Path
	for _, f := range r.formats {
		if !r.inRoots(f.Name(), path) {
			continue
		}
		if p, ok := f.Claim(path); ok {
			p.Format = f.Name()
			claimants, paths = append(claimants, f), append(paths, p)
		}
	}
	for i, f := range claimants {
		if first == nil || f.Sniff(first) {
			return Detection{Format: f, Path: paths[i], How: "path"}
		}
	}
	if first != nil {
		for _, f := range r.formats {
			if rf, ok := f.(format.Refuser); ok && rf.Refuses(path) {
				continue
			}
			if f.Sniff(first) {
				// Outside the format's layout: what the path still says, and
				// that it is not the layout.
				// Retention takes the file alone, never a directory it
				// happens to be in.
				p, _ := f.Claim(path)
				p.Format, p.Group = f.Name(), path
				// Under a root configured for the format, any name is the
				// operator's choice (a captured stream of Claude Code's
				// stream-json output has no place of its own).
				if p.Problem == "" && !r.underOwnRoot(f.Name(), path) {
					p.Problem = "path is not in the " + f.Name() + " layout"
				}
				return Detection{Format: f, Path: p, How: "content"}
			}
		}
	}
	if len(claimants) > 0 {
		// The first line is corrupt or of another runtime no format knows:
		// the layout still says what the file is.
		return Detection{Format: claimants[0], Path: paths[0], How: "path-unconfirmed"}
	}
	return Detection{Format: Unknown, Path: format.Path{Format: Unknown.Name(), Group: path}, How: "fallback"}
}

// underOwnRoot tells whether path is under a root configured for the
// format name (not merely allowed because it has none).
func (r *Registry) underOwnRoot(name, path string) bool {
	return len(r.cfg.Roots[name]) > 0 && r.inRoots(name, path)
}

func (r *Registry) inRoots(name, path string) bool {
	roots := r.cfg.Roots[name]
	if len(roots) == 0 {
		return true
	}
	return slices.ContainsFunc(roots, func(root string) bool {
		rel, err := filepath.Rel(root, path)
		return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
	})
}

// ParseRoots parses the Format_Roots setting: "codelia=/a:/b,orbitmesh=/c".
func ParseRoots(s string) (map[string][]string, error) {
	roots, err := kv.Dirs(s, "format")
	if err != nil {
		return nil, fmt.Errorf("registry: %w", err)
	}
	return roots, nil
}
