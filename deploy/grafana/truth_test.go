package grafana

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/journalship/journalship/internal/sample"
)

// fact is what the test knows about one complete journal line, from the
// corpus's truth, the line's own JSON (read with encoding/json), the
// test's price table and the shipping settings — never from journalship.
type fact struct {
	file       *sample.File
	line       sample.Line
	format     string         // the format label (the file's format)
	unit       string         // the dashboards' job: job_id, else session_id, else run_id
	tenant     string         // the tenant label of the instance that shipped it
	node       string         // that instance's node label
	shipped    bool           // false: dead-lettered for exceeding Max_Line_Bytes
	eventType  string         // the event_type label
	outcome    string         // the outcome label of lines_received_total
	role       string         // the role metadata, "" on a corrupt line
	endReason  string         // the end_reason metadata
	kinds      []string       // annotation kinds the line carries, sorted
	gap        string         // seq_gap detail, "A-B" or "A"
	missing    int64          // seqs the gap leaves out
	requestGap string         // request_seq_gap detail (Codelia)
	costModel  string         // price-table entry, "" when not priced
	cost       float64        // dollars, when costModel is set
	fields     map[string]any // the line's JSON object; nil when corrupt
	toolName   string         // the tool_name metadata
	invocation string         // the invocation_id metadata
	agent      string         // the agent_id metadata
	// side is the entry a format's finalizer builds from the journal's
	// side files (its text is no line of the file: line holds its type
	// and model only); nil for a journal line.
	side *sideEntry
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
func buildFacts(c *sample.Corpus, prices *priceTable, tenantOf, nodeOf func(*sample.File) string, maxLine int) []fact {
	var out []fact
	for fi := range c.Files {
		f := &c.Files[fi]
		highest := int64(-1)
		issued := map[string]string{} // tool_use id → tool name, in the file so far
		var om *omEnds                // OrbitMesh: the attempts' ends, followed line by line
		if f.Format == orbitmeshDir {
			om = &omEnds{attempts: omAttempts(c, f)}
		}
		for _, l := range f.Lines {
			fc := fact{file: f, line: l, format: f.Format, unit: lineUnit(f, l), tenant: tenantOf(f), node: nodeOf(f), shipped: len(l.Text) <= maxLine}
			fc.fields = decodeObject(l.Text)
			fc.eventType, fc.outcome = classify(f.Format, l)
			fc.role, fc.endReason = roleOf(f.Format, l, fc.fields), endReasonOf(f.Format, l, fc.fields, om)
			fc.toolName, fc.invocation = toolOf(f.Format, l, fc.fields, issued)
			fc.agent = agentOf(f.Format, l, fc.fields, f)
			kinds, h := annotationKinds(f.Format, l, highest)
			highest = h
			fc.readGaps()
			if timestampFallback(f.Format, l, fc.fields) {
				kinds = append(kinds, "timestamp_fallback")
			}
			kinds = append(kinds, fc.price(prices)...)
			sort.Strings(kinds)
			fc.kinds = kinds
			out = append(out, fc)
		}
		for _, se := range sideEntries(c, f) {
			out = append(out, sideFact(f, se, tenantOf(f), nodeOf(f)))
		}
	}
	return out
}

// sideFact is what the test knows of an entry f's format builds from f's
// side files: it ships in the file's streams, with the file's job and
// session as the finalizer's own entries do.
func sideFact(f *sample.File, se sideEntry, tenant, node string) fact {
	fc := fact{file: f, line: sample.Line{Seq: -1, Type: se.eventType, Model: se.model}, format: f.Format, unit: synthUnit(f),
		tenant: tenant, node: node, shipped: true, eventType: se.eventType, role: se.role, endReason: se.endReason,
		kinds: slices.Sorted(slices.Values(se.kinds)), fields: se.want, agent: f.AgentID, side: &se}
	if se.hasCost {
		fc.costModel, fc.cost = se.model, se.cost
	}
	return fc
}

// isLine: the fact is a journal line (not a format's side entry).
func isLine(f *fact) bool { return f.side == nil }

// readGaps reads the seq_gap (the shared seq rule) and request_seq_gap
// (Codelia's invocations) details of the line's truth.
func (fc *fact) readGaps() {
	for _, e := range fc.line.Expect {
		if gap, ok := strings.CutPrefix(e, "request_seq_gap:"); ok {
			fc.requestGap = gap
		}
		gap, ok := strings.CutPrefix(e, "seq_gap:")
		if !ok {
			continue
		}
		a, b, ranged := strings.Cut(gap, "-")
		if !ranged {
			b = a
		}
		fc.gap = gap
		if a == b {
			fc.gap = a // the Cortex Plane truth writes a one-seq gap as "A-A"
		}
		ia, _ := strconv.ParseInt(a, 10, 64)
		ib, _ := strconv.ParseInt(b, 10, 64)
		fc.missing = ib - ia + 1
	}
}

// price sets the cost of a line whose tokens count, at the test's price
// table; a model the table does not cover gets price_unknown instead.
func (fc *fact) price(prices *priceTable) (kinds []string) {
	l := fc.line
	if !l.Counted || l.Model == "" {
		return nil
	}
	name, e, ok := prices.price(fc.tenant, l.Model)
	if !ok {
		return []string{"price_unknown"}
	}
	fc.costModel, fc.cost = name, e.cost(l.PromptTokens, l.CompletionTokens, l.CacheReadTokens, l.CacheWriteTokens, l.CacheWrite1hTokens)
	return nil
}

// classify returns the event_type label and the integrity outcome: a type
// its format does not know is shipped as "other" and is valid (forward
// compatibility) unless it breaks the rules every line has.
func classify(format string, l sample.Line) (eventType, outcome string) {
	switch {
	case l.Corrupt:
		return "corrupt", "corrupt"
	case !known(format, l.Type):
		if slicesContain(l.Expect, "schema_invalid") {
			return "other", "schema_invalid"
		}
		return "other", "valid"
	case l.Valid:
		return l.Type, "valid"
	}
	return l.Type, "schema_invalid"
}

// annotationKinds maps the truth's expectations to annotation kinds. The
// Cortex Plane truth does not tell seq_repeat (seq equal to the highest
// before it) from seq_regression (below it): the test does, per the
// annotations table of docs/loki.md, tracking highest, the highest seq before the line in its
// file (-1 at the start), as internal/sample/cortex documents.
func annotationKinds(format string, l sample.Line, highest int64) ([]string, int64) {
	var kinds []string
	for _, e := range l.Expect {
		kind, _, _ := strings.Cut(e, ":")
		if format == cortexDir && kind == "seq_regression" && l.Seq == highest {
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

// timestampFallback: the line has no time of its own, and the pipeline
// places it by the line before it (timestamp_fallback). A corrupt line of
// Cortex Plane or Codelia keeps a time it states readably; a Claude Code
// line has a time only when it is not corrupt and states one: summary
// lines, the metadata types and corrupt lines have none
// (docs/formats/claude-code.md, Model and ids); an OrbitMesh line has
// one only when it is not corrupt and its shape's time (part B's ts, the
// runtime's timestamp) is readable (docs/formats/orbitmesh.md, A2 and
// Line schema); a Codex line has its envelope's timestamp and a Go
// pkg/session message its own (docs/formats/codex.md, One outcome per
// line; docs/formats/go-session.md, Model and ids, where a
// transcript.jsonl line has none), a corrupt line none: neither page
// gives one a time, as claude-code.md says outright of its own.
func timestampFallback(format string, l sample.Line, fields map[string]any) bool {
	if format == goSessionDir && l.Type == "transcript" {
		return true
	}
	switch format {
	case claudeDir, codexDir, goSessionDir:
		return l.Corrupt || !readableTimestamp(format, fields)
	case orbitmeshDir:
		if !l.Corrupt && runtimeShaped(fields) {
			return !rfc3339(fields["timestamp"])
		}
		return l.Corrupt || !readableTimestamp(format, fields)
	}
	return l.Corrupt && !readableTimestamp(format, fields)
}

// readableTimestamp: the object has its format's time (Cortex Plane's,
// Claude Code's, Codex's and Go pkg/session's timestamp, a Claude Code
// file-history-snapshot's snapshot.timestamp, Codelia's and OrbitMesh's
// ts) as a string in RFC 3339.
func readableTimestamp(format string, m map[string]any) bool {
	switch format {
	case cortexDir, codexDir, goSessionDir:
		return rfc3339(m["timestamp"])
	case claudeDir:
		return m["type"] == "file-history-snapshot" && rfc3339(nested(m, "snapshot", "timestamp")) || rfc3339(m["timestamp"])
	case codeliaDir, orbitmeshDir:
		return rfc3339(m["ts"])
	}
	return false
}

// rfc3339: v is a string holding an RFC 3339 time.
func rfc3339(v any) bool {
	s, ok := v.(string)
	if !ok {
		return false
	}
	_, err := time.Parse(time.RFC3339Nano, s)
	return err == nil
}

// severity is the seed's corruption severity of a finished file: corrupt
// lines before its end make it corrupt_interior, else a truncated tail
// truncated_tail.
func severity(f *sample.File) string {
	switch {
	case corruptCount(f) > 0:
		return "corrupt_interior"
	case len(f.PartialTail) > 0 || tornLastLine(f):
		return "truncated_tail"
	}
	return ""
}

// tornLastLine: the file's last complete line is corrupt, which verify
// takes for a truncated tail rather than corruption inside the file.
func tornLastLine(f *sample.File) bool {
	return len(f.PartialTail) == 0 && len(f.Lines) > 0 && f.Lines[len(f.Lines)-1].Corrupt
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

// corruptCount is the number of corrupt complete lines of a file before
// its end (a torn last line is its truncated tail).
func corruptCount(f *sample.File) int {
	n := 0
	for _, l := range f.Lines {
		if l.Corrupt {
			n++
		}
	}
	if tornLastLine(f) {
		n--
	}
	return n
}

// key joins label values into a map key.
func key(vals ...string) string { return strings.Join(vals, "|") }

// fmtKinds renders kinds for messages.
func fmtKinds(k []string) string { return fmt.Sprintf("%v", k) }
