package formattest

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/integrity"
)

// Style is what the formats' golden files write differently; the zero
// Style is Codelia's.
type Style struct {
	// AlwaysTypeName writes the type as written after every event type
	// that has one ("transcript(user)"; "other" for a line with neither);
	// otherwise only an unknown type shows it ("other(name)").
	AlwaysTypeName bool
	// CacheWrite1h: usage shows cache_write_1h.
	CacheWrite1h bool
	// EndReason: an ending line shows its end_reason.
	EndReason bool
	// Cost is the key of the cost a line states ("" leaves it out),
	// written before the notes, or after the end with CostAfterEnd.
	Cost         string
	CostAfterEnd bool
}

// Render is a readable form of the neutral event; unset fields are left
// out.
func Render(ev *format.Event, s Style) string {
	var b strings.Builder
	b.WriteString(ev.Outcome.String())
	if ev.Outcome == integrity.Corrupt {
		fmt.Fprintf(&b, " reason=%q", ev.CorruptReason)
		return b.String()
	}
	typ := ev.EventType
	switch {
	case s.AlwaysTypeName:
		if typ == "" {
			typ = "other"
		}
		if len(ev.TypeName) > 0 {
			typ += "(" + string(ev.TypeName) + ")"
		}
	case typ == "":
		typ = "other(" + string(ev.TypeName) + ")"
	}
	fmt.Fprintf(&b, " type=%s role=%s", typ, ev.Role)
	for _, fl := range []struct {
		f    format.Flags
		name string
	}{{format.UnknownType, "unknown_type"}, {format.BestEffort, "best_effort"}, {format.DuplicateKey, "duplicate_key"},
		{format.SavesCheckpoint, "saves_checkpoint"}} {
		if ev.Flags&fl.f != 0 {
			b.WriteString(" " + fl.name)
		}
	}
	if ev.HasTime {
		b.WriteString(" time=" + ev.Time.UTC().Format(time.RFC3339Nano))
	}
	if ev.HasSchemaVersion {
		fmt.Fprintf(&b, " schema_version=%d", ev.SchemaVersion)
	}
	for _, f := range []struct {
		k string
		v []byte
	}{{"run", ev.RunID}, {"session", ev.SessionID}, {"agent", ev.AgentID}, {"model", ev.Model}, {"tool", ev.ToolName},
		{"call", ev.ToolCallID}, {"checkpoint", ev.CheckpointID}} {
		if len(f.v) > 0 {
			fmt.Fprintf(&b, " %s=%s", f.k, f.v)
		}
	}
	if ev.HasSeq {
		fmt.Fprintf(&b, " seq=%d", ev.Seq)
	}
	if ev.HasPair {
		fmt.Fprintf(&b, " pair=%d", ev.Pair)
	}
	if u := ev.Usage; u.Has {
		fmt.Fprintf(&b, " usage=in:%d,out:%d,cache_read:%d,cache_write:%d", u.Input, u.Output, u.CacheRead, u.CacheWrite)
		if s.CacheWrite1h {
			fmt.Fprintf(&b, ",cache_write_1h:%d", u.CacheWrite1h)
		}
	}
	cost := func() {
		if ev.HasCost && s.Cost != "" {
			fmt.Fprintf(&b, " %s=%g", s.Cost, ev.CostUSD)
		}
	}
	if !s.CostAfterEnd {
		cost()
	}
	if n := Notes(ev); len(n) > 0 {
		b.WriteString(" notes=" + strings.Join(n, ","))
	}
	if v := Violations(ev); len(v) > 0 {
		b.WriteString(" violations=[" + strings.Join(v, "; ") + "]")
	}
	if ev.Ends {
		fmt.Fprintf(&b, " ends terminal=%t", ev.Terminal)
		if s.EndReason {
			fmt.Fprintf(&b, " end_reason=%s", ev.EndReason)
		}
	}
	if s.CostAfterEnd {
		cost()
	}
	if ev.State != "" {
		b.WriteString(" state=" + ev.State)
	}
	return b.String()
}

// Notes renders a line's notes as "kind(detail)".
func Notes(ev *format.Event) []string {
	var out []string
	for _, n := range ev.Notes[:ev.NoteCount] {
		if n.Detail != nil {
			out = append(out, fmt.Sprintf("%s(%s)", n.Kind, n.Detail))
		} else {
			out = append(out, n.Kind)
		}
	}
	return out
}

// Violations renders a line's violations as "field: reason".
func Violations(ev *format.Event) []string {
	var out []string
	for _, v := range ev.Violations {
		out = append(out, v.Field+": "+v.Reason)
	}
	return out
}

// JudgeFile judges data's lines with j into st (a last line without its
// newline is the torn tail) and writes each event rendered with s as
// "n: …" or "n (torn tail): …", then the state: a line
// "over=… terminal=… derived=…" and a line "open: …" for each thing it
// leaves open.
func JudgeFile(b *strings.Builder, j format.Judge, st format.State, data []byte, s Style) {
	a := integrity.NewArena(1 << 12)
	var ev format.Event
	lines := bytes.Split(data, []byte("\n"))
	for i, l := range lines {
		last := i == len(lines)-1
		if last && len(l) == 0 {
			break
		}
		a.Reset(1 << 12)
		j.Judge(l, st, a, &ev)
		tail := ""
		if last {
			tail = " (torn tail)"
		}
		fmt.Fprintf(b, "%d%s: %s\n", i+1, tail, Render(&ev, s))
	}
	over, terminal := st.Over()
	fmt.Fprintf(b, "over=%t terminal=%t derived=%q\n", over, terminal, st.Derived())
	for _, o := range st.Open() {
		fmt.Fprintf(b, "open: %s\n", o)
	}
}
