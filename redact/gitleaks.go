package redact

import (
	_ "embed" // builtin.toml
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/spf13/viper"
	"github.com/zricethezav/gitleaks/v8/config"
)

// This file loads Gitleaks configurations: its default rules, a rule
// file, and the two merged as Gitleaks' [extend] does.

// builtinRules are the rules journalship adds to Gitleaks' defaults.
//
//go:embed builtin.toml
var builtinRules string

// defaults parses Gitleaks' default configuration with builtinRules. It
// is not kept: what a rule set needs of it stays with the compiled set
// (which is kept), and the rest (the rules and allow-lists left out, such
// as generic-api-key's trie of stopwords, megabytes) is let go.
func defaults() (config.Config, error) {
	vc, err := parseTOML(config.DefaultConfig)
	if err != nil {
		return config.Config{}, err
	}
	def, err := translate(vc)
	if err != nil {
		return config.Config{}, err
	}
	if vc, err = parseTOML(builtinRules); err != nil {
		return config.Config{}, fmt.Errorf("builtin.toml: %w", err)
	}
	own, err := translate(vc)
	if err != nil {
		return config.Config{}, fmt.Errorf("builtin.toml: %w", err)
	}
	return merge(own, def, nil), nil
}

// translateMu serialises Translate, which reads package state of
// Gitleaks' config package.
var translateMu sync.Mutex

// loadGitleaks returns the Gitleaks configuration of the rule file at
// path, whose content is text (the default rules when path is ""),
// extended with the default rules when extend is true or the file asks
// for it.
func loadGitleaks(path string, text []byte, extend bool) (config.Config, error) {
	def, err := defaults()
	if err != nil {
		return config.Config{}, fmt.Errorf("redact: Gitleaks' default rules: %w", err)
	}
	if path == "" {
		return def, nil
	}
	bad := func(reason string, err error) error {
		return &ConfigError{Field: "Rules", Value: path, Reason: fmt.Sprintf("%s: %v", reason, err)}
	}
	vc, err := parseTOML(string(text))
	if err != nil {
		return config.Config{}, bad("not a valid Gitleaks TOML file", err)
	}
	ext := vc.Extend
	if ext.Path != "" || ext.URL != "" {
		return config.Config{}, bad("[extend]", errors.New("only useDefault is supported, not path or url: put the rules in one file"))
	}
	// Gitleaks' own [extend] keeps its depth in package state that never
	// goes back, so a second load in the same process would not extend:
	// the merge is done here, with the same rules as Gitleaks'.
	vc.Extend = config.Extend{}
	extending := extend || ext.UseDefault
	if extending {
		// A rule amending a default one may leave out its regex, which
		// Translate would refuse before the merge: it is the default's.
		for i := range vc.Rules {
			if d, ok := def.Rules[vc.Rules[i].ID]; ok && vc.Rules[i].Regex == "" && vc.Rules[i].Path == "" && d.Regex != nil {
				vc.Rules[i].Regex = d.Regex.String()
			}
		}
	}
	own, err := translate(vc)
	if err != nil {
		return config.Config{}, bad("invalid rules", err)
	}
	if len(own.Rules) == 0 && !extending {
		return config.Config{}, bad("invalid rules", errors.New("the file has no [[rules]]"))
	}
	if !extending {
		return own, nil
	}
	for _, id := range ext.DisabledRules {
		if _, ok := def.Rules[id]; !ok {
			return config.Config{}, bad("[extend] disabledRules", fmt.Errorf("no default rule has id %q", id))
		}
	}
	return merge(own, def, ext.DisabledRules), nil
}

// parseTOML reads a Gitleaks configuration with a Viper of its own (not
// Viper's global instance, which Gitleaks' loaders use).
func parseTOML(text string) (*config.ViperConfig, error) {
	v := viper.New()
	v.SetConfigType("toml")
	if err := v.ReadConfig(strings.NewReader(text)); err != nil {
		return nil, err
	}
	var vc config.ViperConfig
	if err := v.Unmarshal(&vc); err != nil {
		return nil, err
	}
	return &vc, nil
}

// translate compiles a configuration; Gitleaks panics on an invalid
// regular expression, which becomes an error.
func translate(vc *config.ViperConfig) (c config.Config, err error) {
	translateMu.Lock()
	defer translateMu.Unlock()
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%v", p)
		}
	}()
	return vc.Translate()
}

// merge adds the rules of base to own as Gitleaks' [extend] does: a rule
// of own with the id of a base rule amends it (its non-empty description,
// entropy, secret group, regex and path win; tags, keywords and allowlists
// add up); disabled base rules are left out; global allowlists add up.
func merge(own, base config.Config, disabled []string) config.Config {
	out := own
	out.Rules = make(map[string]config.Rule, len(base.Rules)+len(own.Rules))
	out.Keywords = map[string]struct{}{}
	for id, r := range own.Rules {
		out.Rules[id] = r
	}
	for id, b := range base.Rules {
		if slices.Contains(disabled, id) {
			continue
		}
		if o, ok := own.Rules[id]; ok {
			if o.Description != "" {
				b.Description = o.Description
			}
			if o.Entropy != 0 {
				b.Entropy = o.Entropy
			}
			if o.SecretGroup != 0 {
				b.SecretGroup = o.SecretGroup
			}
			if o.Regex != nil {
				b.Regex = o.Regex
			}
			if o.Path != nil {
				b.Path = o.Path
			}
			b.Tags = slices.Concat(b.Tags, o.Tags)
			b.Keywords = slices.Concat(b.Keywords, o.Keywords)
			b.Allowlists = slices.Concat(b.Allowlists, o.Allowlists)
		}
		out.Rules[id] = b
	}
	out.OrderedRules = out.OrderedRules[:0:0]
	for id, r := range out.Rules {
		out.OrderedRules = append(out.OrderedRules, id)
		for _, k := range r.Keywords {
			out.Keywords[k] = struct{}{}
		}
	}
	slices.Sort(out.OrderedRules)
	out.Allowlists = slices.Concat(own.Allowlists, base.Allowlists)
	return out
}
