// Package lokiproc starts and stops a real Grafana Loki process for tests and
// for the `make run` demo.
//
// The binary is the one `make loki` builds from the Go module proxy into
// <repo root>/bin/loki. Every Loki gets its own data directory, its own free
// loopback ports and a generated single-binary configuration (see
// lokiconfig.go), so several Lokis can run side by side. Running the
// process is childproc's work; this package describes Loki to it.
package lokiproc

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// EnvBinary names the environment variable that overrides the Loki binary
// path chosen by DefaultConfig.
const EnvBinary = "JOURNALSHIP_LOKI"

// ModulePath is the Go module path of the repository; DefaultConfig looks
// for the go.mod declaring it to find <repo root>/bin/loki.
const ModulePath = "github.com/journalship/journalship"

// DefaultStartTimeout bounds how long Start waits for GET /ready to answer 200.
const DefaultStartTimeout = 90 * time.Second

// hint tells how to get a missing Loki binary.
const hint = "run `make loki` first, put loki beside journalship or on PATH, or set " + EnvBinary

// Config describes one Loki process.
type Config struct {
	// Binary is the path of the Loki executable. Default: $JOURNALSHIP_LOKI,
	// else the first of: loki beside the running executable, <repo
	// root>/bin/loki (the repo root found by walking up from the working
	// directory to the go.mod of ModulePath), loki on PATH.
	Binary string
	// Dir is Loki's data directory (config, log, chunks, index, WAL).
	// Default "": a new temp directory that Stop removes. A directory given
	// here is created if needed and kept at Stop.
	Dir string
	// StartTimeout bounds the wait for GET /ready. Default 90s.
	StartTimeout time.Duration
	// Limits are limits_config overrides applied on top of the test defaults
	// (see DefaultLimits), e.g. {"max_line_size": "1KB"} or
	// {"reject_old_samples": true, "reject_old_samples_max_age": "1h"}.
	// Values must be JSON-encodable; they are written verbatim.
	Limits map[string]any
	// AuthEnabled runs Loki multi-tenant (auth_enabled: true): every push
	// and query must name its tenant in X-Scope-OrgID, and sees only that
	// tenant's data. Default false: one tenant, "fake".
	AuthEnabled bool
}

// DefaultConfig returns the configuration Start uses for zero fields.
func DefaultConfig() Config {
	return Config{
		Binary:       defaultBinary(),
		StartTimeout: DefaultStartTimeout,
	}
}

// Validate reports the first problem in c as a *ConfigError.
func (c Config) Validate() error { return c.child().Validate() }

// checkLimits reports the first Limits entry that cannot be written.
func (c Config) checkLimits() error {
	for k, v := range c.Limits {
		if strings.TrimSpace(k) == "" {
			return configError("Limits", "empty key")
		}
		if _, err := json.Marshal(v); err != nil {
			return configError("Limits["+k+"]", "not JSON-encodable: "+err.Error())
		}
	}
	return nil
}

// configError reports an invalid Config field.
func configError(field, reason string) error {
	return &ConfigError{Name: "loki", Field: field, Reason: reason}
}

// withDefaults fills the zero fields of c from DefaultConfig.
func (c Config) withDefaults() Config {
	if c.Binary == "" || c.StartTimeout == 0 {
		d := DefaultConfig()
		if c.Binary == "" {
			c.Binary = d.Binary
		}
		if c.StartTimeout == 0 {
			c.StartTimeout = d.StartTimeout
		}
	}
	return c
}

// defaultBinary finds the Loki executable: the env override; else "loki"
// beside the running executable (bin/journalship finds bin/loki wherever it
// is run from); else <repo root>/bin/loki, the repo found from the working
// directory (go test runs in a package directory); else "loki" on PATH.
// When none exists it returns the repo's bin/loki (or "loki"), so the
// error names the path `make loki` would write.
func defaultBinary() string {
	if p := os.Getenv(EnvBinary); p != "" {
		return p
	}
	exe, _ := os.Executable()
	wd, _ := os.Getwd()
	return locateBinary(exe, wd, exec.LookPath)
}

// locateBinary is defaultBinary's search from the running executable exe,
// the working directory wd and a PATH lookup; an empty exe or wd is skipped.
func locateBinary(exe, wd string, lookPath func(string) (string, error)) string {
	var candidates []string
	if exe != "" {
		candidates = append(candidates, filepath.Join(filepath.Dir(exe), "loki"))
	}
	inRepo := ""
	if root := repoRoot(wd); wd != "" && root != "" {
		inRepo = filepath.Join(root, "bin", "loki")
		candidates = append(candidates, inRepo)
	}
	if p, err := lookPath("loki"); err == nil {
		candidates = append(candidates, p)
	}
	for _, c := range candidates {
		if isExecutable(c) {
			return c
		}
	}
	if inRepo != "" {
		return inRepo
	}
	return "loki"
}

// isExecutable reports whether path is a regular file someone may execute.
func isExecutable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

// repoRoot walks up from dir. It returns the directory whose go.mod declares
// ModulePath, or else the nearest directory holding any go.mod, or "".
func repoRoot(dir string) string {
	nearest := ""
	for d := dir; ; d = filepath.Dir(d) {
		mod := filepath.Join(d, "go.mod")
		if _, err := os.Stat(mod); err == nil {
			if nearest == "" {
				nearest = d
			}
			if modulePathOf(mod) == ModulePath {
				return d
			}
		}
		if filepath.Dir(d) == d {
			return nearest
		}
	}
}

// modulePathOf returns the module path declared by the go.mod at path.
func modulePathOf(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if rest, ok := strings.CutPrefix(line, "module"); ok && rest != "" && (rest[0] == ' ' || rest[0] == '\t') {
			return strings.Trim(strings.TrimSpace(rest), `"`)
		}
	}
	return ""
}
