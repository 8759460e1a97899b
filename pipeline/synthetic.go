package pipeline

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/journalship/journalship/chunk"
	"github.com/journalship/journalship/deadletter"
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
}

// SyntheticKinds are the event_type values of synthetic entries; with the
// journal's own types they keep the label bounded.
var SyntheticKinds = []string{"truncated_tail", "file_summary"}

// ShipSynthetic pushes entries synchronously. Entries Loki refuses go to
// the dead-letter file; any failure to deliver is a *RetryError.
func (p *Pipeline) ShipSynthetic(ctx context.Context, entries []Synthetic) error {
	var b loki.Batch
	for i := range entries {
		if err := b.Add(p.syntheticEntry(&entries[i], i)); err != nil {
			return &RetryError{Cause: "invalid_entry", Err: err}
		}
	}
	if b.Len() == 0 {
		return nil
	}
	res, err := p.deps.Pusher.Push(ctx, &b)
	if err != nil {
		var pe *loki.PermanentError
		if !errors.As(err, &pe) || len(res.Rejected) == 0 {
			_, cause := loki.Classify(err)
			return &RetryError{Cause: cause, Err: err}
		}
	}
	var dl []deadletter.Entry
	for _, rj := range res.Rejected {
		e := &entries[rj.Ref]
		dl = append(dl, deadletter.Entry{Time: e.Time, File: e.Path, Offset: e.Offset, HasOffset: e.HasOffset,
			Line: e.Line, Reason: rj.Reason, Stage: "loki"})
	}
	if err := p.deps.DeadLetters.Write(dl); err != nil {
		return &RetryError{Cause: "dead_letter", Err: err}
	}
	return nil
}

// syntheticEntry builds labels and entry for e, with the file's context.
func (p *Pipeline) syntheticEntry(e *Synthetic, ref int) ([]loki.Label, loki.Entry) {
	f := p.files.get([]byte(e.Path))
	f.mu.Lock()
	defer f.mu.Unlock()
	p.readSession(f, e.Path, &chunk.Record{Offset: 1, HasOffset: true})
	labels := p.labelSet.get(e.Kind, "synthetic", p.versionValue(f))
	var md []loki.Label
	add := func(k Key, v string) {
		if v != "" && contains(p.cfg.Layout.Metadata, k) {
			md = append(md, loki.Label{Name: string(k), Value: v})
		}
	}
	add(KeyJobID, f.path.JobID)
	add(KeySessionID, f.sessionID)
	add(KeyPod, f.path.Pod)
	add(KeyAgentID, f.agentID)
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
	md = append(md, e.Metadata...)
	return labels, loki.Entry{Timestamp: e.Time, Line: string(e.Line), Metadata: md, Ref: ref}
}

func contains(ks []Key, k Key) bool {
	for _, x := range ks {
		if x == k {
			return true
		}
	}
	return false
}
