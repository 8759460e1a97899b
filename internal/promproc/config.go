// Package promproc starts and stops a real Prometheus server for tests: the
// dashboards' metric panels are checked against what Prometheus itself
// computes from scraped journalship endpoints.
//
// The binary is Debian's `prometheus` package (/usr/bin/prometheus, 2.42),
// which `make deps` installs. Every Prometheus gets its own data directory,
// a free loopback port and a generated configuration scraping the given
// targets (see promconfig.go), so several can run side by side. Running
// the process is childproc's work; this package describes Prometheus to it.
package promproc

import (
	"fmt"
	"net"
	"os"
	"regexp"
	"strings"
	"time"
)

// EnvBinary names the environment variable that overrides the Prometheus
// binary path chosen by DefaultConfig.
const EnvBinary = "JOURNALSHIP_PROMETHEUS"

// DefaultBinary is where Debian's prometheus package installs the server.
const DefaultBinary = "/usr/bin/prometheus"

// hint tells how to get a missing Prometheus binary.
const hint = "run `make deps` (apt-get install prometheus) first, or set " + EnvBinary

// Defaults used by DefaultConfig.
const (
	DefaultStartTimeout   = 60 * time.Second
	DefaultScrapeInterval = time.Second
)

// MinScrapeInterval bounds ScrapeInterval from below.
const MinScrapeInterval = 100 * time.Millisecond

// Target is one scrape job with a single endpoint.
type Target struct {
	// Job is the job label, e.g. "journalship". Unique per Config.
	Job string
	// Addr is host:port of the endpoint, e.g. 127.0.0.1:2021.
	Addr string
	// Path is the metrics path. Default /metrics.
	Path string
}

// Config describes one Prometheus process.
type Config struct {
	// Binary is the Prometheus executable. Default /usr/bin/prometheus;
	// the env variable JOURNALSHIP_PROMETHEUS overrides.
	Binary string
	// Dir is the data directory (config, log, TSDB). Default "": a new temp
	// directory that Stop removes. A directory given here is created if
	// needed and kept at Stop.
	Dir string
	// StartTimeout bounds the wait for GET /-/ready. Default 60s.
	StartTimeout time.Duration
	// ScrapeInterval is every target's scrape interval (and timeout).
	// Default 1s, at least MinScrapeInterval.
	ScrapeInterval time.Duration
	// Targets are scraped from the start. May be empty.
	Targets []Target
}

// DefaultConfig returns the configuration Start uses for zero fields.
func DefaultConfig() Config {
	return Config{Binary: defaultBinary(), StartTimeout: DefaultStartTimeout, ScrapeInterval: DefaultScrapeInterval}
}

func defaultBinary() string {
	if p := os.Getenv(EnvBinary); p != "" {
		return p
	}
	return DefaultBinary
}

// withDefaults fills the zero fields of c from DefaultConfig.
func (c Config) withDefaults() Config {
	d := DefaultConfig()
	if c.Binary == "" {
		c.Binary = d.Binary
	}
	if c.StartTimeout == 0 {
		c.StartTimeout = d.StartTimeout
	}
	if c.ScrapeInterval == 0 {
		c.ScrapeInterval = d.ScrapeInterval
	}
	for i := range c.Targets {
		if c.Targets[i].Path == "" {
			c.Targets[i].Path = "/metrics"
		}
	}
	return c
}

// jobName is what Prometheus accepts as a job name here (a label value, but
// kept simple so the generated configuration needs no quoting rules).
var jobName = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_-]*$`)

// Validate reports the first problem in c as a *ConfigError.
func (c Config) Validate() error { return c.child().Validate() }

// check validates what only Prometheus has: the scrape interval and targets.
func (c Config) check() error {
	switch {
	case c.ScrapeInterval < MinScrapeInterval:
		return configError("ScrapeInterval", fmt.Sprintf("must be >= %s, got %s", MinScrapeInterval, c.ScrapeInterval))
	case c.ScrapeInterval%time.Millisecond != 0:
		return configError("ScrapeInterval", fmt.Sprintf("must be whole milliseconds, got %s", c.ScrapeInterval))
	}
	seen := map[string]bool{}
	for i, t := range c.Targets {
		field := fmt.Sprintf("Targets[%d]", i)
		if err := t.validate(field); err != nil {
			return err
		}
		if seen[t.Job] {
			return configError(field+".Job", fmt.Sprintf("%q is used twice", t.Job))
		}
		seen[t.Job] = true
	}
	return nil
}

// configError reports an invalid Config field.
func configError(field, reason string) error {
	return &ConfigError{Name: "prometheus", Field: field, Reason: reason}
}

func (t Target) validate(field string) error {
	if !jobName.MatchString(t.Job) {
		return configError(field+".Job", fmt.Sprintf("%q is not a simple name ([a-zA-Z_][a-zA-Z0-9_-]*)", t.Job))
	}
	if _, port, err := net.SplitHostPort(t.Addr); err != nil || port == "" {
		return configError(field+".Addr", fmt.Sprintf("%q is not host:port", t.Addr))
	}
	if t.Path != "" && (!strings.HasPrefix(t.Path, "/") || strings.ContainsAny(t.Path, " \n\"")) {
		return configError(field+".Path", fmt.Sprintf("%q must start with / and hold no space or quote", t.Path))
	}
	return nil
}
