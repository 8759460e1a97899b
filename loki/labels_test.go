package loki

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The expected strings are Prometheus' labels.Labels.String() for the same
// sets (prometheus v0.312.1, as vendored by Loki v3.7.8), which Loki's
// syntax.ParseLabels reads back unchanged.
func TestLabelsString(t *testing.T) {
	tests := []struct {
		name string
		in   []Label
		want string
	}{
		{"sorted", []Label{{"session", "s-1"}, {"job", "journalship"}}, "{job=\"journalship\", session=\"s-1\"}"},
		{"quoted names and escapes", []Label{{"a.b", "x\"y'z\n"}, {"_x", "tab\there"}, {"1a", "é\x01\\"}},
			"{\"1a\"=\"é\\x01\\\\\", _x=\"tab\\there\", \"a.b\"=\"x\\\"y'z\\n\"}"},
		{"byte order, unicode", []Label{{"ñame", "✓"}, {"Z", "upper"}, {"z", "lower"}}, "{Z=\"upper\", z=\"lower\", \"ñame\"=\"✓\"}"},
		{"empty values dropped", []Label{{"b", ""}, {"a", "1"}}, `{a="1"}`},
		{"none", nil, "{}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := LabelsString(tt.in)
			assert.Equal(t, tt.want, got)
			ls, rest, ok := parseLabelsPrefix(got + "' tail")
			require.True(t, ok)
			assert.Equal(t, "' tail", rest)
			assert.Equal(t, got, LabelsString(ls), "round trip")
		})
	}
}

func TestParseLabelsPrefixRejects(t *testing.T) {
	for _, in := range []string{``, `job="x"}`, `{job="x"`, `{job=x}`, `{job="x" a="b"}`, `{="x"}`, `{"unterminated=1}`, `{1a="x"}`} {
		t.Run(in, func(t *testing.T) {
			_, _, ok := parseLabelsPrefix(in)
			assert.False(t, ok)
		})
	}
}

func TestIsLegacyName(t *testing.T) {
	tests := map[string]bool{"job": true, "_x": true, "a1": true, "A_b9": true, "": false, "1a": false, "a.b": false, "ñ": false, "a-b": false}
	for name, want := range tests {
		assert.Equal(t, want, isLegacyName(name), name)
	}
}

func TestCheckMetadataName(t *testing.T) {
	tests := map[string]bool{"trace_id": true, "session.id": true, "9": true, "__x__": true, "": false, "___": false, "..": false, "ñ": false}
	for name, valid := range tests {
		assert.Equal(t, valid, checkMetadataName(name) == "", name)
	}
}
