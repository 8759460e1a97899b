package grafana

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/journalship/journalship/internal/sample"
)

// knownTypes are the eleven v1 event types (docs/formats/cortex-plane.md).
var knownTypes = map[string]bool{"SESSION_START": true, "CHECKPOINT_LOADED": true, "LLM_REQUEST": true, "LLM_RESPONSE": true,
	"TOOL_START": true, "TOOL_RESULT": true, "CHECKPOINT_WRITTEN": true, "APPROVAL_REQUESTED": true,
	"STATE_TRANSITION": true, "ERROR": true, "SESSION_END": true}

// fact is what the test knows about one complete journal line, from the
// corpus's truth, the line's own JSON (read with encoding/json), the
// test's price table and the shipping settings — never from journalship.
type fact struct {
	file      *sample.File
	line      sample.Line
	tenant    string         // the tenant label of the instance that shipped it
	node      string         // that instance's node label
	shipped   bool           // false: dead-lettered for exceeding Max_Line_Bytes
	eventType string         // the event_type label
	outcome   string         // the outcome label of lines_received_total
	kinds     []string       // annotation kinds the line carries, sorted
	gap       string         // seq_gap detail, "A-B" or "A"
	missing   int64          // seqs the gap leaves out
	costModel string         // price-table entry, "" when not priced
	cost      float64        // dollars, when costModel is set
	fields    map[string]any // the line's JSON object; nil when corrupt
}

func (f *fact) has(kind string) bool {
	i := sort.SearchStrings(f.kinds, kind)
	return i < len(f.kinds) && f.kinds[i] == kind
}

func (f *fact) str(key string) string { return jsonText(f.fields[key]) }

// jsonText renders a JSON value as Loki's json parser extracts it: strings
// as they are, numbers and booleans as written, null and absent as "".
func jsonText(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case json.Number:
		return x.String()
	case bool:
		return strconv.FormatBool(x)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// buildFacts derives the facts of every complete line of the corpus.
func buildFacts(c *sample.Corpus, prices *priceTable, tenantOf, nodeOf func(job string) string, maxLine int) []fact {
	var out []fact
	for fi := range c.Files {
		f := &c.Files[fi]
		highest := int64(-1)
		for _, l := range f.Lines {
			fc := fact{file: f, line: l, tenant: tenantOf(f.JobID), node: nodeOf(f.JobID), shipped: len(l.Text) <= maxLine}
			fc.fields = decodeObject(l.Text)
			fc.eventType, fc.outcome = classify(l)
			kinds, h := annotationKinds(l, highest)
			highest = h
			for _, e := range l.Expect {
				if gap, ok := strings.CutPrefix(e, "seq_gap:"); ok {
					a, b, _ := strings.Cut(gap, "-")
					fc.gap = gap
					if a == b {
						fc.gap = a
					}
					ia, _ := strconv.ParseInt(a, 10, 64)
					ib, _ := strconv.ParseInt(b, 10, 64)
					fc.missing = ib - ia + 1
				}
			}
			if l.Corrupt && !readableTimestamp(fc.fields) {
				kinds = append(kinds, "timestamp_fallback")
			}
			if l.Type == sample.TypeLLMResponse && l.Valid {
				if name, e, ok := prices.price(fc.tenant, l.Model); ok {
					fc.costModel, fc.cost = name, e.cost(l.PromptTokens, l.CompletionTokens)
				} else {
					kinds = append(kinds, "price_unknown")
				}
			}
			sort.Strings(kinds)
			fc.kinds = kinds
			out = append(out, fc)
		}
	}
	return out
}

// classify returns the event_type label and the integrity outcome: an
// unknown type is shipped as "other" and is valid (forward compatibility).
func classify(l sample.Line) (eventType, outcome string) {
	switch {
	case l.Corrupt:
		return "corrupt", "corrupt"
	case !knownTypes[l.Type]:
		if slicesContain(l.Expect, "schema_invalid") {
			return "other", "schema_invalid"
		}
		return "other", "valid"
	case l.Valid:
		return l.Type, "valid"
	}
	return l.Type, "schema_invalid"
}

// annotationKinds maps the truth's expectations to annotation kinds, telling
// seq_repeat (seq equal to the highest before it) from seq_regression
// (below it), per the README's table. highest is the highest seq seen
// before the line in its file (-1 at the start), tracked as the sample
// package documents.
func annotationKinds(l sample.Line, highest int64) ([]string, int64) {
	var kinds []string
	for _, e := range l.Expect {
		kind, _, _ := strings.Cut(e, ":")
		if kind == "seq_regression" && l.Seq == highest {
			kind = "seq_repeat"
		}
		kinds = append(kinds, kind)
	}
	if !l.Corrupt && l.Seq > highest {
		highest = l.Seq
	}
	return kinds, highest
}

func slicesContain(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// decodeObject parses a line as a JSON object, numbers kept as written.
func decodeObject(text string) map[string]any {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil
	}
	return m
}

// readableTimestamp: the object has a string timestamp in RFC 3339.
func readableTimestamp(m map[string]any) bool {
	s, ok := m["timestamp"].(string)
	if !ok {
		return false
	}
	_, err := time.Parse(time.RFC3339Nano, s)
	return err == nil
}

// severity is the seed's corruption severity of a finished file: corrupt
// lines make it corrupt_interior, else a partial last line truncated_tail.
func severity(f *sample.File) string {
	for _, l := range f.Lines {
		if l.Corrupt {
			return "corrupt_interior"
		}
	}
	if len(f.PartialTail) > 0 {
		return "truncated_tail"
	}
	return ""
}

// gapCount is the number of seq gaps in a file.
func gapCount(f *sample.File) int {
	n := 0
	for _, l := range f.Lines {
		for _, e := range l.Expect {
			if strings.HasPrefix(e, "seq_gap:") {
				n++
			}
		}
	}
	return n
}

// corruptCount is the number of corrupt complete lines of a file.
func corruptCount(f *sample.File) int {
	n := 0
	for _, l := range f.Lines {
		if l.Corrupt {
			n++
		}
	}
	return n
}

// key joins label values into a map key.
func key(vals ...string) string { return strings.Join(vals, "|") }

// fmtKinds renders kinds for messages.
func fmtKinds(k []string) string { return fmt.Sprintf("%v", k) }
