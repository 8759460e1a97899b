package grafana

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"path"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/format/registry"
	"github.com/journalship/journalship/internal/sample"
)

// The entries a format's finalizer ships from the files a runtime keeps
// beside its journals (format.SideRecords), not from their lines: what
// they are is read here from the side files the corpus holds, as the
// format's page says, never from the format's code.

// sideEntry is one such entry of a journal.
type sideEntry struct {
	eventType, role, endReason, model string
	at                                time.Time // the entry's time
	kinds                             []string  // its annotation kinds
	// cost, when hasCost, is its cost_usd (cost_model its model).
	cost    float64
	hasCost bool
	// want are members its text (a JSON object) holds, as
	// encoding/json decodes them with UseNumber.
	want map[string]any
}

// sideReaders read, per format whose finalizer ships entries of its own,
// the entries of a journal of the corpus.
var sideReaders = map[string]func(c *sample.Corpus, f *sample.File) []sideEntry{goSessionDir: goSessionSides}

// sideEntries are the entries f's format ships from f's side files.
func sideEntries(c *sample.Corpus, f *sample.File) []sideEntry {
	if read := sideReaders[f.Format]; read != nil {
		return read(c, f)
	}
	return nil
}

// TestEveryFormatWithSideRecordsHasAReader: a format whose finalizer ships
// entries built from side files (format.SideRecords) adds entries to
// Loki that are no journal line; the world must know them to count them.
func TestEveryFormatWithSideRecordsHasAReader(t *testing.T) {
	for _, f := range registry.All() {
		if _, ok := f.(format.SideRecords); ok && sideReaders[f.Name()] == nil {
			t.Errorf("format %s ships entries from its side files (format.SideRecords): sideReaders has no reader of them", f.Name())
		}
	}
}

// goSessionSides: the finalizer's one pass over a Go pkg/session
// messages.jsonl ships one checkpoint entry per complete manifest, and,
// when the session is over, one summary entry of metadata.json
// (docs/formats/go-session.md, section 4: When a session is over,
// Checkpoints, Tokens and cost).
func goSessionSides(c *sample.Corpus, f *sample.File) []sideEntry {
	if path.Base(f.Rel) != "messages.jsonl" {
		return nil
	}
	dir := path.Dir(f.Rel)
	out := goSessionCheckpoints(c, dir)
	m, ok := readGoSessionMetadata(c, dir)
	if !ok || !m.over(f) {
		return out
	}
	return append(out, m.summary(c, path.Base(dir)))
}

// goSessionMeta is metadata.json as section 3 reads it: a field of the
// wrong type is unknown on its own.
type goSessionMeta struct {
	id, sessionID, model, exitReason, parent string
	created, updated                         time.Time
	cost                                     float64
	hasCost                                  bool
	perRun                                   bool // Goat's (named by id): the latest run's own figures
}

// readGoSessionMetadata reads <dir>/metadata.json from the side files;
// ok is false when it is absent or not one complete JSON object.
func readGoSessionMetadata(c *sample.Corpus, dir string) (m goSessionMeta, ok bool) {
	obj, ok := sideObject(c, dir+"/metadata.json")
	if !ok {
		return m, false
	}
	str := func(k string) string { s, _ := obj[k].(string); return s }
	tm := func(k string) time.Time {
		t, err := time.Parse(time.RFC3339Nano, str(k))
		if err != nil || t.Equal(time.Time{}) {
			return time.Time{}
		}
		return t
	}
	m = goSessionMeta{id: str("id"), sessionID: str("session_id"), model: str("model"), exitReason: str("exit_reason"),
		parent: cmp.Or(str("parent_session_id"), str("parent_id")), created: tm("created_at"), updated: tm("updated_at")}
	if n, ok := obj["total_cost_usd"].(json.Number); ok {
		if v, err := n.Float64(); err == nil && v >= 0 && !math.IsInf(v, 0) {
			m.cost, m.hasCost = v, true
		}
	}
	_, bySession := obj["session_id"]
	_, byID := obj["id"]
	m.perRun = !bySession || byID
	return m, true
}

// over: the run ended after the session's last message: an exit_reason,
// updated_at after created_at and not before the newest message's
// timestamp (readable messages only; the world's metadata always states
// updated_at).
func (m goSessionMeta) over(f *sample.File) bool {
	if m.exitReason == "" || m.updated.IsZero() || !m.created.IsZero() && !m.updated.After(m.created) {
		return false
	}
	for _, l := range f.Lines {
		if l.Corrupt {
			continue
		}
		s, _ := decodeObject(l.Text)["timestamp"].(string)
		if t, err := time.Parse(time.RFC3339Nano, s); err == nil && t.After(m.updated) {
			return false
		}
	}
	return true
}

// summary is the summary entry of the run m describes, for the session
// directory named id: event_type metadata, role session_end, end_reason
// its exit_reason, at its updated_at. Its cost: in Goat's shape the run's
// total_cost_usd (0, annotated cost_in_parent, for a subagent a sibling
// session names); in the spec's the growth since the session's previous
// summary, the whole total at the world's one pass (annotated
// cost_includes_parent for a fork).
func (m goSessionMeta) summary(c *sample.Corpus, id string) sideEntry {
	e := sideEntry{eventType: "metadata", role: "session_end", endReason: m.exitReason, model: m.model, at: m.updated,
		want: map[string]any{"session_id": id, "exit_reason": m.exitReason}}
	if m.model != "" {
		e.want["model"] = m.model
	}
	if named := cmp.Or(m.id, m.sessionID); named != "" && named != id {
		e.kinds = append(e.kinds, "metadata_id_mismatch")
	}
	if !m.hasCost {
		return e
	}
	e.cost, e.hasCost = m.cost, true
	e.want["total_cost_usd"] = json.Number(fmt.Sprint(m.cost))
	switch {
	case m.perRun && goSessionSubagent(c, id):
		e.cost = 0
		e.kinds = append(e.kinds, "cost_in_parent")
	case !m.perRun && m.parent != "":
		e.kinds = append(e.kinds, "cost_includes_parent")
	}
	e.want["cost_usd"] = json.Number(fmt.Sprint(e.cost))
	return e
}

// goSessionSubagent: a sibling session's messages.jsonl names the
// session as its subagent (agentId: <id>, Agent ID: <id>).
func goSessionSubagent(c *sample.Corpus, id string) bool {
	for _, f := range c.Files {
		if f.Format == goSessionDir && path.Base(f.Rel) == "messages.jsonl" && path.Base(path.Dir(f.Rel)) != id &&
			(bytes.Contains(f.Data, []byte("agentId: "+id)) || bytes.Contains(f.Data, []byte("Agent ID: "+id))) {
			return true
		}
	}
	return false
}

// goSessionCheckpoints are the checkpoint entries of the manifests under
// <dir>/checkpoints/ that read as one complete JSON object: role
// checkpoint, at its created_at, its id checkpoint_id, else
// user_message_uuid, else its directory's name, and its files' count.
func goSessionCheckpoints(c *sample.Corpus, dir string) []sideEntry {
	var out []sideEntry
	for _, s := range c.Side {
		name, ok := strings.CutPrefix(s.Rel, dir+"/checkpoints/")
		cp, rest, _ := strings.Cut(name, "/")
		if !ok || rest != "manifest.json" {
			continue
		}
		obj, ok := sideObject(c, s.Rel)
		if !ok {
			continue
		}
		id, _ := obj["checkpoint_id"].(string)
		if id == "" {
			id, _ = obj["user_message_uuid"].(string)
		}
		files, _ := obj["files"].([]any)
		created, _ := obj["created_at"].(string)
		out = append(out, sideEntry{eventType: "checkpoint", role: "checkpoint", at: sideTime(created),
			want: map[string]any{"checkpoint_id": cmp.Or(id, cp), "checkpoint_files": json.Number(fmt.Sprint(len(files)))}})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].at.Before(out[j].at) })
	return out
}

// sideObject decodes the side file rel as one JSON object, numbers as
// written; ok is false when it is absent, or not one complete object.
func sideObject(c *sample.Corpus, rel string) (map[string]any, bool) {
	i := slices.IndexFunc(c.Side, func(s sample.SideFile) bool { return s.Rel == rel })
	if i < 0 {
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(c.Side[i].Data))
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil || obj == nil || dec.More() {
		return nil, false
	}
	return obj, true
}

// sideTextHolds checks a side entry's text: a JSON object holding the
// members the world knows of it.
func sideTextHolds(text string, want map[string]any) error {
	got := decodeObject(text)
	if got == nil {
		return fmt.Errorf("text %.200q is not a JSON object", text)
	}
	for k, v := range want {
		if !sameJSON(got[k], v) {
			return fmt.Errorf("text %.300q: %s is %v, want %v", text, k, got[k], v)
		}
	}
	return nil
}

// sameJSON compares two decoded JSON values, numbers by value.
func sameJSON(a, b any) bool {
	na, aNum := a.(json.Number)
	nb, bNum := b.(json.Number)
	if aNum && bNum {
		fa, errA := na.Float64()
		fb, errB := nb.Float64()
		return errA == nil && errB == nil && near(fa, fb, 1e-12)
	}
	return a == b
}
