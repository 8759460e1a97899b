package loki

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Label is a name/value pair: a stream label or a structured-metadata entry.
type Label struct{ Name, Value string }

// Labels that Loki adds to a stream on its own. They can appear in the
// stream labels of Loki's error texts without being in the pushed stream.
const (
	lokiServiceName = "service_name"     // pkg/loghttp/push (discover_service_name)
	lokiStreamShard = "__stream_shard__" // pkg/ingester/instance.go (stream sharding)
	lokiTimeShard   = "__time_shard__"   // pkg/distributor/distributor.go (time sharding)
)

// isLegacyName reports whether name matches [a-zA-Z_][a-zA-Z0-9_]*, the
// names Prometheus writes without quotes.
func isLegacyName(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (i > 0 && c >= '0' && c <= '9') {
			continue
		}
		return false
	}
	return true
}

// appendLabelsString appends ls (sorted by name) the way Prometheus'
// labels.Labels.String renders it and Loki's parser reads it back:
// {a="x", "b.c"="y"}.
func appendLabelsString(dst []byte, ls []Label) []byte {
	dst = append(dst, '{')
	for i, l := range ls {
		if i > 0 {
			dst = append(dst, ',', ' ')
		}
		if isLegacyName(l.Name) {
			dst = append(dst, l.Name...)
		} else {
			dst = strconv.AppendQuote(dst, l.Name)
		}
		dst = append(dst, '=')
		dst = strconv.AppendQuote(dst, l.Value)
	}
	return append(dst, '}')
}

// LabelsString returns the canonical Loki stream selector of ls: sorted by
// name, labels with an empty value dropped (Loki drops them too).
func LabelsString(ls []Label) string {
	s := make([]Label, 0, len(ls))
	for _, l := range ls {
		if l.Value != "" {
			s = append(s, l)
		}
	}
	sortLabels(s)
	return string(appendLabelsString(nil, s))
}

// sortLabels sorts by name with an insertion sort: label sets are small and
// sort.Slice would allocate.
func sortLabels(ls []Label) {
	for i := 1; i < len(ls); i++ {
		for j := i; j > 0 && ls[j].Name < ls[j-1].Name; j-- {
			ls[j], ls[j-1] = ls[j-1], ls[j]
		}
	}
}

// checkStreamLabel returns why Loki would refuse l as a stream label, or "".
func checkStreamLabel(l Label) (field, msg string) {
	switch {
	case l.Name == "":
		return "name", "empty label name"
	case !utf8.ValidString(l.Name):
		return "name", "label name is not valid UTF-8"
	case !utf8.ValidString(l.Value):
		return "value", "label value is not valid UTF-8"
	}
	return "", ""
}

// checkMetadataName returns why Loki would fail on a structured-metadata
// name, or "". Loki normalises names with otlptranslator.LabelNamer, which
// errors (and Loki answers 500 for the whole request, forever) on an empty
// name or one without any ASCII letter or digit.
func checkMetadataName(name string) string {
	if name == "" {
		return "empty structured metadata name"
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') {
			return ""
		}
	}
	return "structured metadata name needs at least one ASCII letter or digit"
}

// parseLabelsPrefix parses a Prometheus label set ({a="x", "b.c"="y"}) at the
// start of s. It returns the labels and the rest of s after the closing
// brace.
func parseLabelsPrefix(s string) ([]Label, string, bool) {
	if !strings.HasPrefix(s, "{") {
		return nil, s, false
	}
	s = s[1:]
	var ls []Label
	for {
		if strings.HasPrefix(s, "}") {
			return ls, s[1:], true
		}
		if len(ls) > 0 {
			if !strings.HasPrefix(s, ",") {
				return nil, s, false
			}
			s = strings.TrimLeft(s[1:], " ")
		}
		var l Label
		var ok bool
		if l.Name, s, ok = parseLabelName(s); !ok {
			return nil, s, false
		}
		if !strings.HasPrefix(s, "=") {
			return nil, s, false
		}
		if l.Value, s, ok = parseQuoted(s[1:]); !ok {
			return nil, s, false
		}
		ls = append(ls, l)
	}
}

func parseLabelName(s string) (string, string, bool) {
	if strings.HasPrefix(s, `"`) {
		return parseQuoted(s)
	}
	i := 0
	for i < len(s) {
		c := s[i]
		if c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (i > 0 && c >= '0' && c <= '9') {
			i++
			continue
		}
		break
	}
	if i == 0 {
		return "", s, false
	}
	return s[:i], s[i:], true
}

func parseQuoted(s string) (string, string, bool) {
	q, err := strconv.QuotedPrefix(s)
	if err != nil {
		return "", s, false
	}
	v, err := strconv.Unquote(q)
	if err != nil {
		return "", s, false
	}
	return v, s[len(q):], true
}

// TenantLabel is the label that carries a stream's tenant, as Promtail's
// __tenant_id__ does: it is never sent as a label, and every request
// holds streams of one tenant, sent as its X-Scope-OrgID. A stream
// without it goes to Config.TenantID.
const TenantLabel = "__tenant_id__"

// TenantProblem returns why Loki would refuse tenant as a tenant ID (its
// X-Scope-OrgID rules, dskit's tenant.ValidTenantID), or "": at most 150
// characters from [a-zA-Z0-9!-_.*'()], not "." or "..".
func TenantProblem(tenant string) string {
	switch {
	case tenant == "":
		return "empty tenant"
	case len(tenant) > 150:
		return "tenant longer than 150 characters"
	case tenant == "." || tenant == "..":
		return "tenant " + quote(tenant) + " is not allowed"
	}
	for _, r := range tenant {
		if !tenantRune(r) {
			return "tenant " + quote(tenant) + " holds " + quote(string(r)) + ": only a-z, A-Z, 0-9 and !-_.*'() are allowed"
		}
	}
	return ""
}

func tenantRune(r rune) bool {
	switch {
	case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		return true
	}
	return r < 128 && strings.ContainsRune("!-_.*'()", r)
}
