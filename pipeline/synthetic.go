package pipeline

import (
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/journalship/journalship/chunk"
	"github.com/journalship/journalship/deadletter"
	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/loki"
)

// Synthetic is an entry journalship writes itself about a journal file,
// not a line of it: the marker for a truncated tail, a file's integrity
// summary. It goes to the file's streams with the file's context (job,
// session, pod, agent), so it shows in the session's audit trail.
type Synthetic struct {
	Path string
	// Kind is the event_type label value ("truncated_tail", "file_summary").
	Kind string
	Time time.Time
	// Line is the entry's text, a JSON object.
	Line      []byte
	Offset    int64
	HasOffset bool
	// Annotations are added to the annotations metadata.
	Annotations []string
	// Metadata are extra structured metadata.
	Metadata []loki.Label
	// Role, Model and EndReason ship as a journal line's role, model and
	// end_reason do (an entry a format builds from its side files); "" for
	// none.
	Role, Model, EndReason string
	// Cost, when CostModel is set, is what the entry adds to its session's
	// cost: shipped as cost_usd and cost_model, and counted in the cost
	// metric once Loki has it.
	Cost      float64
	CostModel string
	// Reported, when HasReported, is a cost the runtime states: shipped as
	// reported_cost_usd, never summed.
	Reported    float64
	HasReported bool
}

// SyntheticKinds are the event_type values of synthetic entries; with the
// journal's own types they keep the label bounded.
var SyntheticKinds = []string{"truncated_tail", "file_summary"}

// ShipSynthetic pushes entries synchronously, with the Old_Entries policy
// of journal lines: an entry outside Loki's window, or refused by Loki as
// too old or too far behind, is re-stamped now (its own time kept in
// original_timestamp) under Rewrite, dead-lettered under DeadLetter. Other
// refusals go to the dead-letter file; any failure to deliver is a
// *RetryError.
func (p *Pipeline) ShipSynthetic(ctx context.Context, entries []Synthetic) error {
	entries = slices.Clone(entries) // redacted here, not in the caller's
	redactions := p.redactSynthetic(entries)
	var dl []deadletter.Entry
	var first, again loki.Batch
	kept := make([]loki.Entry, len(entries))
	labels := make([][]loki.Label, len(entries))
	tenants := make([]tenantOf, len(entries))
	now := p.cfg.Now()
	for i := range entries {
		e := &entries[i]
		labels[i], kept[i], tenants[i] = p.syntheticEntry(e, i)
		if why := tenants[i].unplaced; why != "" {
			// A journal no rule places: its entries are its content as
			// its lines are, never sent without a tenant.
			letter := syntheticLetter(e, why)
			letter.Stage = dlNoTenant.stage
			dl = append(dl, letter)
			continue
		}
		if len(e.Line) > p.cfg.MaxLineBytes {
			// As a journal line that long: Loki would refuse it.
			letter := syntheticLetter(e, fmt.Sprintf("%s entry of %d bytes exceeds Max_Line_Bytes %d", e.Kind, len(e.Line), p.cfg.MaxLineBytes))
			letter.Stage = dlTooLong.stage
			dl = append(dl, letter)
			continue
		}
		stamp, reason := p.syntheticWindow(labels[i], e.Time, now)
		if reason != "" {
			if p.cfg.OldEntries == DeadLetter {
				dl = append(dl, syntheticLetter(e, reason))
				continue
			}
			kept[i] = restamp(kept[i], stamp)
		}
		if err := first.Add(labels[i], kept[i]); err != nil {
			dl = append(dl, syntheticLetter(e, err.Error()))
		}
	}
	if err := p.behind.publish(ctx); err != nil {
		return &RetryError{Cause: "ledger", Err: err}
	}
	res, err := p.pushBatch(ctx, &first)
	if err != nil {
		return err
	}
	for _, rj := range res.Rejected {
		e := &entries[rj.Ref]
		if p.cfg.OldEntries == Rewrite && timestampRefusal(rj.Reason) && kept[rj.Ref].Timestamp.Equal(e.Time) {
			if err := again.Add(labels[rj.Ref], restamp(kept[rj.Ref], now)); err == nil {
				continue
			}
		}
		dl = append(dl, syntheticLetter(e, rj.Reason))
	}
	res, err = p.pushBatch(ctx, &again)
	if err != nil {
		return err
	}
	for _, rj := range res.Rejected {
		dl = append(dl, syntheticLetter(&entries[rj.Ref], rj.Reason))
	}
	if err := p.deps.DeadLetters.Write(dl); err != nil {
		return &RetryError{Cause: "dead_letter", Err: err}
	}
	p.countSyntheticCost(entries, tenants)
	p.countRedactions(redactions)
	return nil
}

// syntheticWindow is window for a synthetic entry of stream labels at t
// (synthetic entries share the journal's streams): the reason Loki would
// refuse t ("" when it accepts it) and the time to stamp it with instead,
// which its stream's newest time then takes into account.
func (p *Pipeline) syntheticWindow(labels []loki.Label, t, now time.Time) (time.Time, string) {
	need, cut, why := p.judgeTime(labels, t, now)
	if why == timeAccepted {
		return time.Time{}, ""
	}
	p.behind.admit(labels, need)
	return need, why.reason(t, cut)
}

// countSyntheticCost adds the entries' costs to the cost metric, once
// they are in Loki (or dead-lettered, with the reason: the dollars were
// spent either way), but those of a journal no tenant rule places, whose
// lines count nothing either.
func (p *Pipeline) countSyntheticCost(entries []Synthetic, tenants []tenantOf) {
	if p.deps.Metrics == nil {
		return
	}
	for i := range entries {
		if e := &entries[i]; tenants[i].unplaced == "" && e.CostModel != "" && e.Cost > 0 && p.counted.Add(syntheticKey(e)) == 1 {
			p.deps.Metrics.CostUSD.WithLabelValues(p.modelLabel.Value(e.CostModel), tenantLabel(tenants[i].tenant)).Add(e.Cost)
		}
	}
}

// tenantOf is the tenant of a synthetic entry's file, or why it has none.
type tenantOf struct{ tenant, unplaced string }

// countedMemory is how many synthetic entries whose cost was counted a
// process remembers, so that one shipped again is counted once.
const countedMemory = 4096

// syntheticKey names a synthetic entry: the same entry shipped again (a
// finalizer pass that failed after the push, before its marks were kept)
// has the same key.
func syntheticKey(e *Synthetic) uint64 {
	h := fnv.New64a()
	h.Write([]byte(e.Path))
	h.Write([]byte{0})
	h.Write([]byte(e.Kind))
	h.Write([]byte{0})
	h.Write(e.Line)
	h.Write([]byte{0})
	h.Write([]byte(e.CostModel))
	var n [16]byte
	binary.LittleEndian.PutUint64(n[:8], uint64(e.Time.UnixNano()))
	binary.LittleEndian.PutUint64(n[8:], math.Float64bits(e.Cost))
	h.Write(n[:])
	return h.Sum64()
}

// restamp returns e stamped now, its time kept in original_timestamp and
// timestamp_rewritten added to its annotations.
func restamp(e loki.Entry, now time.Time) loki.Entry {
	annots := "timestamp_rewritten"
	for _, m := range e.Metadata {
		if m.Name == string(KeyAnnotations) && m.Value != "" {
			annots = m.Value + "," + annots
		}
	}
	e.Metadata, e.Timestamp = stamped(e.Metadata, e.Timestamp, annots), now
	return e
}

func syntheticLetter(e *Synthetic, reason string) deadletter.Entry {
	return deadletter.Entry{Time: e.Time, File: e.Path, Offset: e.Offset, HasOffset: e.HasOffset, Line: e.Line, Reason: reason, Stage: "loki"}
}

// Format returns the journal format of the file at path: detected from its
// path and first line once, then remembered with the file's state.
func (p *Pipeline) Format(path string) format.Format {
	f := p.files.get([]byte(path))
	f.mu.Lock()
	defer f.mu.Unlock()
	p.detect(f, path, &chunk.Record{Offset: 1, HasOffset: true})
	return f.format
}

// syntheticEntry builds labels and entry for e, with the file's context,
// and says the file's tenant, or why it has none (then nothing is built).
func (p *Pipeline) syntheticEntry(e *Synthetic, ref int) (labels []loki.Label, entry loki.Entry, tenant tenantOf) {
	f := p.files.get([]byte(e.Path))
	f.mu.Lock()
	defer f.mu.Unlock()
	p.detect(f, e.Path, &chunk.Record{Offset: 1, HasOffset: true})
	if f.unplaced != "" {
		return nil, loki.Entry{}, tenantOf{unplaced: f.unplaced}
	}
	labels = p.labelSet.get(f.tenant, f.format.Name(), e.Kind, "synthetic", p.versionValue(f))
	var md []loki.Label
	add := func(k Key, v string) {
		if v != "" && slices.Contains(p.cfg.Layout.Metadata, k) {
			md = append(md, loki.Label{Name: string(k), Value: v})
		}
	}
	add(KeyJobID, f.path.JobID)
	add(KeySessionID, cmp.Or(f.sessionID, f.path.SessionID)) // learned from the lines, else the file name's (OrbitMesh)
	add(KeyPod, f.path.Pod)
	add(KeyAgentID, cmp.Or(f.agentID, f.path.AgentID))
	add(KeyRunID, f.path.RunID)
	add(KeyFormat, f.format.Name())
	add(KeyRole, e.Role)
	add(KeyModel, e.Model)
	add(KeyEndReason, e.EndReason)
	add(KeyFile, e.Path)
	if e.HasOffset {
		add(KeyOffset, strconv.FormatInt(e.Offset, 10))
	}
	if len(e.Annotations) > 0 {
		list := e.Annotations[0]
		for _, a := range e.Annotations[1:] {
			list += "," + a
		}
		md = append(md, loki.Label{Name: string(KeyAnnotations), Value: list})
	}
	var scratch [32]byte
	if e.CostModel != "" {
		md = append(md, loki.Label{Name: mdCostUSD, Value: string(formatUSD(scratch[:0], e.Cost))},
			loki.Label{Name: mdCostModel, Value: e.CostModel})
	}
	if e.HasReported {
		md = append(md, loki.Label{Name: mdReportedCost, Value: string(formatUSD(scratch[:0], e.Reported))})
	}
	md = append(md, e.Metadata...)
	return labels, loki.Entry{Timestamp: e.Time, Line: string(e.Line), Metadata: md, Ref: ref}, tenantOf{tenant: f.tenant}
}
