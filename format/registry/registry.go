// Package registry is the one place journal formats are registered: the
// list in All. The plugin and the CLI pick a file's format here, from its
// path, confirmed by its first line, unless an explicit choice overrides.
package registry

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/format/cortex"
	"github.com/journalship/journalship/format/unknown"
)

// All returns every registered format, in the order detection tries them,
// without the fallback. To add a format, add it here (see the README).
func All() []format.Format {
	return []format.Format{
		cortex.New(),
	}
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
}

// DefaultConfig detects every format anywhere.
func DefaultConfig() Config {
	return Config{Format: Auto, Roots: map[string][]string{}}
}

// Validate reports an unknown format name or a relative root.
func (c Config) Validate() error {
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
func Lookup(name string) format.Format {
	for _, f := range append(All(), Unknown) {
		if f.Name() == name {
			return f
		}
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
	r := &Registry{cfg: cfg, formats: All()}
	if cfg.Format != Auto {
		r.forced = Lookup(cfg.Format)
	}
	return r, nil
}

// ErrNoFormat is returned by Explicit for a name no format has.
var ErrNoFormat = errors.New("registry: no such format")

// Explicit returns the format named by an explicit choice (a tag, a flag).
func (r *Registry) Explicit(name string) (format.Format, error) {
	if f := Lookup(name); f != nil {
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
			if f.Sniff(first) {
				p, _ := f.Claim(path)
				p.Format = f.Name()
				if p.Group == "" {
					p.Group = path
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
