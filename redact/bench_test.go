package redact

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/journalship/journalship/internal/sample"
	"github.com/journalship/journalship/internal/sample/claudecode"
	cortexsample "github.com/journalship/journalship/internal/sample/cortex"
)

// BenchmarkRedact redacts journal lines one per op with Gitleaks' default
// rules: (a) Cortex Plane lines (about 430 bytes) and (b) Claude Code
// lines of 2 to 10 KB (tool results with code and shell output), neither
// holding a secret, and (c) such lines with a secret put into their
// longest string. It reports ns/line, B/line and allocs/line (the same
// as the per-op figures) and MB/s.
func BenchmarkRedact(b *testing.B) {
	cortex, claude := benchCorpora(b)
	for _, c := range []struct {
		name  string
		lines [][]byte
	}{
		{"cortex", cortex},
		{"claude-code", claude},
		{"cortex-secret", withSecrets(b, cortex)},
		{"claude-code-secret", withSecrets(b, claude)},
	} {
		b.Run(c.name, func(b *testing.B) { benchLines(b, c.lines) })
	}
}

func benchLines(b *testing.B, lines [][]byte) {
	r, err := New(DefaultConfig())
	if err != nil {
		b.Fatal(err)
	}
	size, secrets := 0, 0
	for _, l := range lines {
		size += len(l)
		if _, found := r.Redact("bench.jsonl", l, nil); len(found) > 0 { // and warm the pool
			secrets++
		}
	}
	if secrets != 0 && secrets != len(lines) {
		b.Fatalf("%d of %d lines hold a secret: all or none should", secrets, len(lines))
	}
	b.SetBytes(int64(size / len(lines)))
	buf := make([]byte, 0, 64<<10)
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		out, _ := r.Redact("/data/sessions/job/session.jsonl", lines[i%len(lines)], buf)
		if cap(out) == cap(buf) {
			buf = out
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/line")
}

// benchCorpora returns the lines of a Cortex Plane corpus and Claude
// Code tool results of 2 to 10 KB.
func benchCorpora(b testing.TB) (cortex, claude [][]byte) {
	b.Helper()
	start := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	scfg := cortexsample.DefaultConfig()
	scfg.Jobs, scfg.Start, scfg.Faults = 60, start, false
	sc, err := cortexsample.Generate(scfg)
	if err != nil {
		b.Fatal(err)
	}
	ccfg := claudecode.DefaultConfig()
	ccfg.Sessions, ccfg.Start, ccfg.Faults = 60, start, false
	cc, err := claudecode.Generate(ccfg)
	if err != nil {
		b.Fatal(err)
	}
	for _, f := range sc.Files {
		for _, l := range f.Lines {
			cortex = append(cortex, []byte(l.Text))
		}
	}
	claude = grownToolResults(b, cc)
	if len(cortex) == 0 || len(claude) == 0 {
		b.Fatalf("corpora: %d Cortex lines, %d Claude Code lines", len(cortex), len(claude))
	}
	return cortex, claude
}

// grownToolResults returns the tool-result lines of a Claude Code corpus
// whose output is a string, that output grown to make lines of 2 to
// 10 KB (evenly) with the outputs of other tool results (source files,
// diffs, shell output), as long Read and Bash results are.
func grownToolResults(b testing.TB, cc *sample.Corpus) [][]byte {
	b.Helper()
	type result struct {
		line   []byte
		output string
	}
	var results []result
	var outputs []string
	for _, f := range cc.Files {
		for _, l := range f.Lines {
			var v struct {
				Message struct {
					Content []struct {
						Type    string `json:"type"`
						Content any    `json:"content"`
					} `json:"content"`
				} `json:"message"`
			}
			if json.Unmarshal([]byte(l.Text), &v) != nil || len(v.Message.Content) == 0 {
				continue
			}
			if out, ok := v.Message.Content[0].Content.(string); ok && v.Message.Content[0].Type == "tool_result" {
				results = append(results, result{[]byte(l.Text), out})
				outputs = append(outputs, out)
			}
		}
	}
	var lines [][]byte
	for i, r := range results {
		old := encodeString(b, r.output)
		at := bytes.Index(r.line, old)
		if at < 0 {
			continue
		}
		target := (2 + i%9) << 10
		grown := r.output
		for k := i + 1; len(r.line)+len(grown)+len(grown)/16-len(r.output) < target; k++ {
			grown += "\n" + outputs[k%len(outputs)]
		}
		line := slices.Concat(r.line[:at], encodeString(b, grown), r.line[at+len(old):])
		if len(line) <= 10<<10 {
			lines = append(lines, line)
		}
	}
	return lines
}

// encodeString encodes s as JSON does in a journal (no HTML escaping).
func encodeString(b testing.TB, s string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		b.Fatal(err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// benchSecrets are real-format secrets (from Gitleaks' rule examples).
var benchSecrets = []string{
	"export AWS_ACCESS_KEY_ID=AKIALALEMEL33243OKIA",
	"git remote set-url origin https://x:ghp_dzqb5jebzo6esrq1jbdgd75u8aegzsjdak3s@github.com/acme/api",
	"SLACK_BOT_TOKEN=xoxb-781236542736-2364535789652-GkwFDQoHqzXDVsC6GzqYUypD",
	"-----BEGIN PRIVATE KEY-----\nMIIEvgIBADANBgkqhkiG9w0BAQEFAASCBKgwggSkAgEAAoIBAQDxJ7ncBhzgb7s7\nv7YGmX4p9pWqNGgPkRxlQmB9cYQvhVKQk5T0vDUeJk4h2F2N3zAKjCNV3q3Gz0pZ\n-----END PRIVATE KEY-----",
	"Authorization: Bearer eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
}

// withSecrets returns the lines with a secret put into the middle of each
// one's longest string that is not itself a JSON document (between two
// words).
func withSecrets(b testing.TB, lines [][]byte) [][]byte {
	b.Helper()
	var out [][]byte
	for i, l := range lines {
		var v any
		if err := json.Unmarshal(l, &v); err != nil {
			continue
		}
		var best slot
		longest(v, &best)
		if best.s == "" {
			continue
		}
		mid := len(best.s) / 2
		if sp := strings.IndexAny(best.s[mid:], " \n"); sp >= 0 {
			mid += sp
		}
		best.set(best.s[:mid] + " " + benchSecrets[i%len(benchSecrets)] + "\n" + best.s[mid:])
		line, err := json.Marshal(v)
		if err != nil {
			b.Fatal(err)
		}
		out = append(out, line)
	}
	if len(out) == 0 {
		b.Fatal("no line took a secret")
	}
	return out
}

// slot is where a string value sits in a decoded JSON value.
type slot struct {
	m map[string]any
	k string
	a []any
	i int
	s string
}

func (s slot) set(v string) {
	if s.m != nil {
		s.m[s.k] = v
	} else {
		s.a[s.i] = v
	}
}

func isDoc(s string) bool { return looksLikeDoc([]byte(s)) && json.Valid([]byte(s)) }

// longest finds the longest string value in v that is not a document.
func longest(v any, best *slot) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if s, ok := e.(string); ok && len(s) > len(best.s) && !isDoc(s) {
				*best = slot{m: x, k: k, s: s}
			}
			longest(e, best)
		}
	case []any:
		for i, e := range x {
			if s, ok := e.(string); ok && len(s) > len(best.s) && !isDoc(s) {
				*best = slot{a: x, i: i, s: s}
			}
			longest(e, best)
		}
	}
}
