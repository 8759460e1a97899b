package audit

import (
	"slices"

	"github.com/journalship/journalship/integrity"
)

// recovery collects the Phase-2 facts: the last CHECKPOINT_WRITTEN, the
// TOOL_RESULTs after it, and the TOOL_STARTs never finished.
type recovery struct {
	checkpoint *Checkpoint
	completed  []string            // invocation_ids since the last checkpoint, in order
	done       map[string]struct{} // the same, as a set
	started    map[string]ToolCall // TOOL_STARTs without a TOOL_RESULT yet
	names      map[string]string   // interned tool names
}

func (rc *recovery) init() {
	rc.done = map[string]struct{}{}
	rc.started = map[string]ToolCall{}
	rc.names = map[string]string{}
}

// event takes in one line the seed accepts; view is the bytes it was
// validated from.
func (rc *recovery) event(a *auditor, ev *integrity.Event, view []byte, offset int64) {
	switch ev.Kind {
	case integrity.KindCheckpointWritten:
		rc.checkpoint = &Checkpoint{ID: string(ev.CheckpointID), Step: -1, Seq: -1, Offset: offset}
		if ev.HasStepIndex {
			rc.checkpoint.Step = ev.StepIndex
		}
		if ev.HasSeq {
			rc.checkpoint.Seq = ev.Seq
		}
		rc.completed = rc.completed[:0]
		clear(rc.done)
	case integrity.KindToolStart:
		if len(ev.InvocationID) == 0 {
			return
		}
		if _, dup := rc.started[string(ev.InvocationID)]; dup {
			return
		}
		rc.started[string(ev.InvocationID)] = ToolCall{
			InvocationID: string(ev.InvocationID), ToolName: rc.name(ev.ToolName),
			SideEffect: a.sideEffect(view), Offset: offset,
		}
	case integrity.KindToolResult:
		if len(ev.InvocationID) == 0 {
			return
		}
		delete(rc.started, string(ev.InvocationID))
		if _, seen := rc.done[string(ev.InvocationID)]; !seen {
			id := string(ev.InvocationID)
			rc.done[id] = struct{}{}
			rc.completed = append(rc.completed, id)
		}
	case integrity.KindSessionEnd:
		a.r.SessionEnded = true
		a.r.EndReason = string(ev.EndReason)
		if a.r.EndReason == "" {
			a.r.EndReason = a.rawString(view, "reason")
		}
	}
}

func (rc *recovery) name(b []byte) string {
	if s, ok := rc.names[string(b)]; ok {
		return s
	}
	s := string(b)
	rc.names[s] = s
	return s
}

// report copies the facts into r: the skip list only when a checkpoint
// was found (the seed skips Phase 2 otherwise), unfinished calls by offset.
func (rc *recovery) report(r *Report) {
	r.LastCheckpoint = rc.checkpoint
	r.CompletedAfterCheckpoint = []string{}
	if rc.checkpoint != nil {
		r.CompletedAfterCheckpoint = append(r.CompletedAfterCheckpoint, rc.completed...)
	}
	r.StartedNotFinished = make([]ToolCall, 0, len(rc.started))
	for _, c := range rc.started {
		r.StartedNotFinished = append(r.StartedNotFinished, c)
	}
	slices.SortFunc(r.StartedNotFinished, func(x, y ToolCall) int {
		switch {
		case x.Offset < y.Offset:
			return -1
		case x.Offset > y.Offset:
			return 1
		}
		return 0
	})
}

// sideEffect reads a TOOL_START's is_side_effect (the validator does not
// extract it).
func (a *auditor) sideEffect(view []byte) bool {
	v, err := a.fj.ParseBytes(view)
	return err == nil && v.GetBool("is_side_effect")
}

// rawString reads a string field the validator refused to keep.
func (a *auditor) rawString(view []byte, key string) string {
	v, err := a.fj.ParseBytes(view)
	if err != nil {
		return ""
	}
	return string(v.GetStringBytes(key))
}
