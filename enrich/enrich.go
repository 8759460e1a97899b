// Package enrich derives the context a journal line does not carry itself:
// the node it was read on, and static labels from configuration and the
// environment. What a path says is its format's (Format.Claim).
package enrich

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
)

// Config holds the static context of one process.
type Config struct {
	// Node is the node name shipped with every line. Default: $NODE_NAME,
	// else the host name.
	Node string
	// Static are extra key/values attached to every line (as stream labels
	// or structured metadata, as the pipeline's layout decides).
	Static map[string]string
}

// DefaultConfig reads the node name from the environment.
func DefaultConfig() Config {
	return Config{Node: DefaultNode(), Static: map[string]string{}}
}

// DefaultNode returns $NODE_NAME (set from the downward API in the
// DaemonSet), else the host name, else "unknown".
func DefaultNode() string {
	if n := os.Getenv("NODE_NAME"); n != "" {
		return n
	}
	if h, err := os.Hostname(); err == nil && h != "" {
		return h
	}
	return "unknown"
}

var labelName = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`)

// Validate checks that static keys are valid Loki label names.
func (c Config) Validate() error {
	if c.Node == "" {
		return errors.New("enrich: node name is empty")
	}
	for k := range c.Static {
		if !labelName.MatchString(k) {
			return fmt.Errorf("enrich: static key %q is not a valid label name ([a-zA-Z_][a-zA-Z0-9_]*)", k)
		}
	}
	return nil
}

// ParseStatic parses "k1=v1,k2=v2" (the plugin's Labels setting).
func ParseStatic(s string) (map[string]string, error) {
	out := map[string]string{}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		k, v, ok := strings.Cut(part, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || k == "" {
			return nil, fmt.Errorf("enrich: %q is not key=value", part)
		}
		if !labelName.MatchString(k) {
			return nil, fmt.Errorf("enrich: %q is not a valid label name", k)
		}
		out[k] = v
	}
	return out, nil
}
