// Package redact replaces the secrets of journal lines (API keys, tokens,
// private keys, passwords in URLs…) before they leave the node, with
// Gitleaks' rules: its default rule set (github.com/zricethezav/gitleaks/v8,
// config.DefaultConfig, 222 rules) or a Gitleaks TOML file of one's own.
//
//	r, err := redact.New(redact.DefaultConfig())
//	out, found := r.Redact(path, line, buf) // out is line itself when found is empty
//
// Each secret becomes <REDACTED-SECRET:rule-id>, or with Config.Hash
// <REDACTED-SECRET:rule-id:hmac>, hmac being the first 16 hex digits of
// an HMAC-SHA256 of the secret under a node-local key (LoadOrCreateKey),
// so that one secret can be followed across lines without a dictionary
// attack on a bare hash.
//
// # Gitleaks' rules, not its detector
//
// The package parses Gitleaks' configuration with Gitleaks' own code
// (config.ViperConfig.Translate: rules with their regex, keywords,
// entropy, secret group, allowlists, composite rules) and runs the rules
// with a matcher of its own. Gitleaks' detect.Detector is made for
// scanning repositories: DetectSource keeps every finding and every commit
// in memory for its report (a daemon feeding it for ever would grow), and
// DetectString, which keeps nothing, lower-cases and copies each fragment,
// builds a keyword map and loggers per call, runs each matching regex
// twice over the whole fragment, reports secrets as strings with line and
// column rather than byte offsets, and honours "gitleaks:allow" comments,
// which in a journal anyone can write. Gitleaks' own [extend] useDefault
// keeps its depth in package state that never goes back, so a second load
// in the same process would not extend: the file's rules are merged with
// the defaults here, by Gitleaks' rules for [extend] (amend a rule of the
// same id, drop disabledRules). Its loaders also use Viper's global
// instance; here each load has a Viper of its own.
//
// The matcher keeps Gitleaks' semantics: a rule runs over a text only if
// the text holds one of its keywords (ASCII letters in any case); the
// secret is the rule's secret group, else its first non-empty group,
// else the match; its Shannon entropy must exceed the rule's; global and
// rule allowlists apply (regexes on the secret, the match or the line,
// stopwords; conditions on commits and paths are about the files Gitleaks
// scans and never hold for a journal); of overlapping findings, a rule
// that is not generic names the replacement.
//
// # What it costs
//
// A line first goes through one pass over its raw bytes that looks for
// the rules' words, without allocating or reading the JSON: for each rule
// either its Gitleaks keywords or the literals of its "anchor", whichever
// are rarer. The anchor is derived from the rule's regular expression
// (regexp/syntax): a literal (or one literal per branch of an
// alternation) that every match holds at most a bounded number of bytes
// after its start, with the bytes the expression fixes right after it
// (for ghp_, 36 letters or digits). Each word is looked up by the byte
// pair (and the class of the byte after it) least frequent in a reference
// of common words and code (common.txt). Where a rule's words are found,
// its anchor's occurrences are checked against the bytes that must follow
// and against a filter, a bounded part of the expression run anchored at
// the occurrence; only a line where one passes (or an escape sits in the
// way, see below) is decoded and searched, and then the full expression
// runs only in a window around each occurrence that passed. Gitleaks'
// default rules all have keywords; the one without (pkcs12-file) matches
// file names, not content. A rule of one's own without keywords gets its
// anchor's literals as keywords; one with neither runs over every line
// (it makes every line take the slow path).
//
// # JSON lines
//
// A line that is JSON keeps its structure: the rules run over a view of
// it where the content of every string is decoded (so "\n" in a private
// key is a newline and a "\"token\": \"…\"" inside a string is seen with
// its quotes), keys included for the context some rules need ("password":
// "…"); a rule whose expression ends at the end of the text, where a
// closing quote would not do, also runs over each string alone. A string
// whose content is itself a JSON object or array is read as a document
// in turn (three levels deep). A secret is replaced only inside string
// values, never in keys, by mapping its bytes back to the escapes that
// encode them: every other byte of the line is kept as it was. A line
// that is not JSON (torn, corrupt) is redacted as text.
//
// The first pass reads the raw bytes. Standard JSON encoders escape only
// quotes, backslashes, control characters and, some of them, <, >, &, /
// and non-ASCII characters: a rule word holding one of those makes the
// pass also look for the escape that could hide it. A text whose letters
// or digits are written as \u escapes (which no encoder does) is not
// looked through by the first pass.
//
// # Defaults and what is not found
//
// Of the 222 default rules, the five that match file names or need a
// file's path (pkcs12-file, freemius-secret-key, hashicorp-tf-password,
// kubernetes-secret-yaml, nuget-config-password) cannot apply to a
// journal line and are left out, and generic-api-key, the catch-all rule
// whose false positives are the most common complaint about Grafana
// Alloy's loki.secretfilter, is off unless Config.Generic. To them
// journalship adds its own (builtin.toml): connection-string-password,
// passwords in postgres://, mysql://, mongodb://, redis:// and amqp://
// URLs, which no Gitleaks rule covers. 217 rules are in force. Not found:
// secrets no rule describes, such as free-form passwords outside key = value patterns (generic-api-key finds
// some); secrets split across lines or JSON strings; secrets in object
// keys (never rewritten); secrets encoded in base64, hex or URL
// encoding (Gitleaks' own decoding passes are not done); and, in JSON
// nested deeper than three strings, which is searched as text, secrets
// that need their escapes decoded (a private key's newlines).
package redact
