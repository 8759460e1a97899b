// Package childproc runs a real server binary as a child process for tests:
// it checks the binary, gives the server a data directory and free loopback
// ports, spawns it with its output in a log file, waits until an HTTP ready
// path answers 200 and stops it again. lokiproc (Grafana Loki) and promproc
// (Prometheus) describe their server with a Config and add what is specific
// to it: the configuration file, the arguments, the ready path.
package childproc

import (
	"cmp"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// Defaults used by DefaultConfig.
const (
	DefaultStartTimeout = 60 * time.Second
	DefaultStopGrace    = 10 * time.Second
	DefaultAttempts     = 3
	DefaultReadyPath    = "/"
)

// Attempt is what one try at starting the server is given. Every attempt
// gets new ports, so a port another process took meanwhile is not reused.
type Attempt struct {
	// Dir is the data directory (absolute).
	Dir string
	// ConfigPath is Dir/Config.ConfigName, or "" without a ConfigName.
	ConfigPath string
	// Ports are Config.Ports distinct loopback TCP ports that were free just
	// now; the server must serve HTTP on Ports[0].
	Ports []int
}

// RenderFunc returns, for one attempt, the configuration file body that
// Start writes to Attempt.ConfigPath (nil for none) and the arguments the
// binary is run with.
type RenderFunc func(Attempt) (config []byte, args []string, err error)

// Config describes one child server.
type Config struct {
	// Name is the server's short name, e.g. "loki". It names the log file
	// (Dir/<Name>.log), the temp dir and every error. Required, [a-z0-9_-]+.
	Name string
	// Binary is the path of the server's executable. Required.
	Binary string
	// Hint tells how to get a missing Binary, e.g. "run `make loki` first";
	// BinaryNotFoundError and ForTest show it.
	Hint string
	// Dir is the data directory. Default "": a new temp directory that Stop
	// removes. A directory given here is created if needed and kept at Stop.
	Dir string
	// ConfigName is the file inside Dir that Render's configuration is
	// written to, e.g. "loki.yaml". Default "": no configuration file.
	ConfigName string
	// Ports is how many free loopback ports every attempt gets. Default 1.
	Ports int
	// ReadyPath is the HTTP path polled on Ports[0] until it answers 200,
	// e.g. "/ready". Default "/".
	ReadyPath string
	// StartTimeout bounds the wait for ReadyPath. Default 60s.
	StartTimeout time.Duration
	// StopGrace is how long Stop waits after SIGTERM before SIGKILL.
	// Default 10s.
	StopGrace time.Duration
	// Attempts bounds the starts tried when a chosen port was taken
	// meanwhile. Default 3.
	Attempts int
	// Render returns the configuration and arguments of one attempt.
	// Default nil: no configuration file and no arguments.
	Render RenderFunc
	// Check validates the server's own settings; Validate calls it after
	// its own checks. Default nil: nothing more to check.
	Check func() error
}

// DefaultConfig returns the values Start uses for zero fields. Name and
// Binary have no default.
func DefaultConfig() Config {
	return Config{
		Ports:        1,
		ReadyPath:    DefaultReadyPath,
		StartTimeout: DefaultStartTimeout,
		StopGrace:    DefaultStopGrace,
		Attempts:     DefaultAttempts,
	}
}

// withDefaults fills the zero fields of c from DefaultConfig.
func (c Config) withDefaults() Config {
	d := DefaultConfig()
	c.Ports = cmp.Or(c.Ports, d.Ports)
	c.ReadyPath = cmp.Or(c.ReadyPath, d.ReadyPath)
	c.StartTimeout = cmp.Or(c.StartTimeout, d.StartTimeout)
	c.StopGrace = cmp.Or(c.StopGrace, d.StopGrace)
	c.Attempts = cmp.Or(c.Attempts, d.Attempts)
	return c
}

// serverName is what Name may be: it becomes part of file names.
var serverName = regexp.MustCompile(`^[a-z0-9_-]+$`)

// Validate reports the first problem in c as a *ConfigError, then what
// Check reports.
func (c Config) Validate() error {
	bad := func(field, format string, args ...any) error {
		return &ConfigError{Name: c.Name, Field: field, Reason: fmt.Sprintf(format, args...)}
	}
	switch {
	case !serverName.MatchString(c.Name):
		return bad("Name", "%q is not [a-z0-9_-]+", c.Name)
	case c.Binary == "":
		return bad("Binary", "empty; %s", c.Hint)
	case c.ConfigName != "" && (c.ConfigName != filepath.Base(c.ConfigName) || c.ConfigName == "." || c.ConfigName == ".."):
		return bad("ConfigName", "%q is not a plain file name", c.ConfigName)
	case c.Ports < 1:
		return bad("Ports", "must be >= 1, got %d", c.Ports)
	case !strings.HasPrefix(c.ReadyPath, "/"):
		return bad("ReadyPath", "%q does not start with /", c.ReadyPath)
	case c.StartTimeout <= 0:
		return bad("StartTimeout", "must be > 0, got %s", c.StartTimeout)
	case c.StopGrace <= 0:
		return bad("StopGrace", "must be > 0, got %s", c.StopGrace)
	case c.Attempts < 1:
		return bad("Attempts", "must be >= 1, got %d", c.Attempts)
	}
	if c.Check != nil {
		return c.Check()
	}
	return nil
}
