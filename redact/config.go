package redact

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
)

// Config says which secrets are replaced and how.
type Config struct {
	// Enabled turns redaction on (default true). Off, Redact returns every
	// line as it is.
	Enabled bool
	// Rules is a Gitleaks TOML file of rules; "" means Gitleaks' default
	// rules. The file replaces the default rules, or is added to them when
	// Extend is true or the file says [extend] useDefault = true (a rule
	// of the file with a default rule's id then amends that rule, and
	// [extend] disabledRules drops default rules, as in Gitleaks).
	Rules string
	// Extend adds the rules of the Rules file to the default rules.
	Extend bool
	// Generic turns on the catch-all rules (ids holding "generic", such as
	// generic-api-key), off by default: they match any long random-looking
	// value near a word like "key" or "token" and are the most frequent
	// false positives.
	Generic bool
	// Hash appends to each replacement a keyed hash of the secret
	// (<REDACTED-SECRET:rule-id:hmac>), so the same secret can be followed
	// across lines without being shown. It needs KeyFile.
	Hash bool
	// KeyFile holds the node-local key of Hash (see LoadOrCreateKey).
	KeyFile string
	// AllowRules are rule ids never redacted.
	AllowRules []string
	// AllowValues are secrets never redacted (a finding whose secret is
	// exactly one of them is left alone).
	AllowValues []string
	// AllowPaths are globs (filepath.Match, "*" stays within a directory)
	// of journal paths whose lines are never redacted.
	AllowPaths []string
}

// DefaultConfig returns redaction on with Gitleaks' default rules, the
// generic rules off and no hash.
func DefaultConfig() Config {
	return Config{Enabled: true}
}

// ConfigError is an invalid setting. It is permanent: the same settings
// always fail.
type ConfigError struct {
	Field  string // the Config field at fault, e.g. "Rules"
	Value  string // the value given
	Reason string
}

func (e *ConfigError) Error() string {
	return fmt.Sprintf("redact: %s %q: %s", e.Field, e.Value, e.Reason)
}

// Retryable is false: a configuration does not fix itself.
func (e *ConfigError) Retryable() bool { return false }

// Validate checks the settings, loading the rule file: a missing or
// invalid file, an unknown rule id in AllowRules, a bad glob in
// AllowPaths and Hash without KeyFile are errors naming the setting.
func (c Config) Validate() error {
	_, err := c.rules()
	return err
}

// validateShape checks what needs no rule file.
func (c Config) validateShape() error {
	if c.Hash && c.KeyFile == "" {
		return &ConfigError{Field: "KeyFile", Reason: "Hash needs a key file"}
	}
	if c.Extend && c.Rules == "" {
		return &ConfigError{Field: "Extend", Value: "true", Reason: "Extend needs a Rules file to add"}
	}
	for _, p := range c.AllowPaths {
		if _, err := filepath.Match(p, ""); err != nil {
			return &ConfigError{Field: "AllowPaths", Value: p, Reason: err.Error()}
		}
	}
	for _, v := range c.AllowValues {
		if v == "" {
			return &ConfigError{Field: "AllowValues", Reason: "an empty value allows nothing"}
		}
	}
	return nil
}

// compiled keeps the rule sets compiled in this process, by what they
// were compiled from (a rule file by its content): compiling takes tens
// of milliseconds and megabytes, and every pipeline of a process (and
// every Validate) asks for the same one. A ruleSet is read-only once
// compiled.
var compiled struct {
	sync.Mutex
	m map[string]*ruleSet
}

// rules loads the rule set and checks the settings against it.
func (c Config) rules() (*ruleSet, error) {
	if err := c.validateShape(); err != nil {
		return nil, err
	}
	text, err := c.ruleFile()
	if err != nil {
		return nil, err
	}
	key := c.rulesKey(text)
	compiled.Lock()
	defer compiled.Unlock()
	if set, ok := compiled.m[key]; ok {
		return set, nil
	}
	set, err := c.compile(text)
	if err != nil {
		return nil, err
	}
	if compiled.m == nil || len(compiled.m) >= 8 {
		compiled.m = map[string]*ruleSet{}
	}
	compiled.m[key] = set
	return set, nil
}

// ruleFile reads the Rules file (nil when there is none). It is read
// once: the rule set is keyed by and compiled from the same bytes.
func (c Config) ruleFile() ([]byte, error) {
	if c.Rules == "" {
		return nil, nil
	}
	text, err := os.ReadFile(c.Rules)
	if err != nil {
		return nil, &ConfigError{Field: "Rules", Value: c.Rules, Reason: "cannot read the rule file: " + err.Error()}
	}
	return text, nil
}

// rulesKey names what the rule set of c is compiled from, the Rules
// file by its content text.
func (c Config) rulesKey(text []byte) string {
	sum := [sha256.Size]byte{}
	if c.Rules != "" {
		sum = sha256.Sum256(text)
	}
	allow := slices.Sorted(slices.Values(c.AllowRules))
	return fmt.Sprintf("%x %t %t %q", sum, c.Extend, c.Generic, allow)
}

// compile loads the rules of c, its Rules file being text, and compiles
// them.
func (c Config) compile(text []byte) (*ruleSet, error) {
	gc, err := loadGitleaks(c.Rules, text, c.Extend)
	if err != nil {
		return nil, err
	}
	for _, id := range c.AllowRules {
		if _, ok := gc.Rules[id]; !ok {
			return nil, &ConfigError{Field: "AllowRules", Value: id, Reason: "no rule has this id"}
		}
	}
	return compileRules(gc, c.Generic, func(id string) bool { return slices.Contains(c.AllowRules, id) })
}
