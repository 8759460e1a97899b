package pipeline

import (
	"math/bits"
	"slices"
	"strconv"
	"strings"

	"github.com/journalship/journalship/chunk"
	"github.com/journalship/journalship/loki"
	"github.com/journalship/journalship/redact"
)

// mdRedacted details the redacted annotation: how many secrets of each
// rule were replaced ("2 aws-access-token,1 github-pat").
const mdRedacted = "redacted"

// redact replaces the secrets of item i's line before anything ships it:
// the entry, a retry, a dead letter. The line was judged before (validity,
// continuity, tokens and cost are the original's); the ledger and the
// file checks keep using the original bytes, which are the file's.
func (p *Pipeline) redact(w *work, i int, path string) {
	r, it := &w.recs[i], &w.items[i]
	// A new slice per redacted line: entries point into it until the push
	// is over, and lines with secrets are rare.
	out, found := p.redactor.Redact(path, r.Line, nil)
	if len(found) == 0 {
		return
	}
	it.line, it.redacted = out, found
	it.annots |= aRedacted
}

// RedactLine returns line, a journal line (or part of one) of the file at
// path, with its secrets replaced as they are before a line leaves the
// node: line itself when it holds none. The finalizer redacts a torn tail
// with it before cutting its preview, so that the cut never leaves the
// start of a secret the whole tail shows.
func (p *Pipeline) RedactLine(path string, line []byte) []byte {
	out, _ := p.redactor.Redact(path, line, nil)
	return out
}

// redactMeta replaces, in metadata values taken from a line (an id, a
// tool name), the secrets found in that line: a secret in a field that
// becomes metadata must not leave the node that way either.
func redactMeta(meta []loki.Label, line []byte, found []redact.Finding) {
	for k := range meta {
		if !derivedMeta[meta[k].Name] {
			meta[k].Value = redactValue(meta[k].Value, line, found)
		}
	}
}

// derivedMeta are the metadata keys whose values journalship takes from
// the file's path, its settings or its own verdicts, never from a line's
// content: a secret found in the line is not in them, and a short one
// (a URL's password "worker") must not rewrite them where its letters
// happen to occur (file=…/agent-worker-1.jsonl, pod=agent-worker-1).
var derivedMeta = map[string]bool{string(KeyFile): true, string(KeyOffset): true, string(KeyPod): true,
	string(KeyNode): true, string(KeyFormat): true, string(KeyIntegrity): true, string(KeyRole): true,
	string(KeyAnnotations): true, mdRedacted: true, mdPathProblem: true, string(KeySessionStart): true,
	string(KeySchemaVersion): true, string(KeyEventType): true, string(KeySeq): true, string(KeyStepIndex): true,
	mdSeqGap: true, mdSeqRepeat: true, mdSeqRegression: true, mdCostUSD: true, mdCostModel: true,
	mdReportedCost: true, mdCostComputed: true, string(KeyTokensIn): true, string(KeyTokensOut): true,
	string(KeyTokensCacheRead): true, string(KeyTokensCacheWrite): true}

// redactValue returns v with the secrets found in line replaced.
func redactValue(v string, line []byte, found []redact.Finding) string {
	for _, f := range found {
		raw := string(line[f.Start:f.End])
		secret := raw
		if s, err := strconv.Unquote(`"` + raw + `"`); err == nil {
			secret = s // as decoded from its JSON string
		}
		if secret != "" && strings.Contains(v, secret) {
			v = strings.ReplaceAll(v, secret, "<REDACTED-SECRET:"+f.Rule+">")
		}
	}
	return v
}

// shipped is the line of record r as it leaves the node.
func shipped(it *item, r *chunk.Record) []byte {
	if it.line != nil {
		return it.line
	}
	return r.Line
}

// redactedDetail renders the redactions of a line by rule, in the order
// the rules first occur: "2 aws-access-token,1 github-pat".
func redactedDetail(found []redact.Finding) string {
	var rules []string
	count := map[string]int{}
	for _, f := range found {
		if count[f.Rule] == 0 {
			rules = append(rules, f.Rule)
		}
		count[f.Rule]++
	}
	parts := make([]string, len(rules))
	for k, rule := range rules {
		parts[k] = strconv.Itoa(count[rule]) + " " + rule
	}
	return strings.Join(parts, ",")
}

// redactSynthetic replaces the secrets of synthetic entries' lines (a torn
// tail's preview is journal content) and returns how many each rule
// replaced, for the metric once the entries are settled.
func (p *Pipeline) redactSynthetic(entries []Synthetic) map[redactKey]int {
	var counts map[redactKey]int
	for i := range entries {
		e := &entries[i]
		out, found := p.redactor.Redact(e.Path, e.Line, nil)
		if len(found) == 0 {
			continue
		}
		// Values shipped as metadata (a side file's end_reason, model)
		// may hold what the line does.
		e.Role, e.Model, e.EndReason = redactValue(e.Role, e.Line, found), redactValue(e.Model, e.Line, found), redactValue(e.EndReason, e.Line, found)
		e.Metadata = slices.Clone(e.Metadata)
		redactMeta(e.Metadata, e.Line, found)
		e.Line = out
		e.Annotations = append(slices.Clip(e.Annotations), annotNames[bits.TrailingZeros32(uint32(aRedacted))])
		e.Metadata = append(e.Metadata, loki.Label{Name: mdRedacted, Value: redactedDetail(found)})
		if counts == nil {
			counts = map[redactKey]int{}
		}
		format := p.Format(e.Path).Name()
		for _, f := range found {
			counts[redactKey{f.Rule, format}]++
		}
	}
	return counts
}

// redactKey keys the redaction tally: the rule and the journal format.
type redactKey struct{ rule, format string }

// countRedactions adds a tally of redactions to the metric.
func (p *Pipeline) countRedactions(counts map[redactKey]int) {
	if p.deps.Metrics == nil {
		return
	}
	for k, n := range counts {
		p.deps.Metrics.SecretsRedacted.WithLabelValues(k.rule, k.format).Add(float64(n))
	}
}
