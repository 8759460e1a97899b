package audit

import (
	"slices"

	"github.com/journalship/journalship/format"
)

// recovery collects what a resume would rely on, from the format-neutral
// roles: the last saved checkpoint, the tool results after it, and the
// tool calls never finished.
type recovery struct {
	checkpoint *Checkpoint
	completed  []string            // tool call ids since the last checkpoint, in order
	done       map[string]struct{} // the same, as a set
	started    map[string]ToolCall // tool calls without a result yet
	names      map[string]string   // interned tool names
}

func (rc *recovery) init() {
	rc.done = map[string]struct{}{}
	rc.started = map[string]ToolCall{}
	rc.names = map[string]string{}
}

// event takes in one valid line.
func (rc *recovery) event(a *auditor, ev *format.Event, offset int64) {
	switch {
	case ev.Role == format.RoleCheckpoint && ev.Flags&format.SavesCheckpoint != 0:
		rc.checkpoint = &Checkpoint{ID: string(ev.CheckpointID), Step: -1, Seq: -1, Offset: offset}
		if ev.HasPair {
			rc.checkpoint.Step = ev.Pair
		}
		if ev.HasSeq {
			rc.checkpoint.Seq = ev.Seq
		}
		rc.completed = rc.completed[:0]
		clear(rc.done)
	case ev.Role == format.RoleToolCall:
		if len(ev.ToolCallID) == 0 {
			return
		}
		if _, dup := rc.started[string(ev.ToolCallID)]; dup {
			return
		}
		rc.started[string(ev.ToolCallID)] = ToolCall{
			InvocationID: string(ev.ToolCallID), ToolName: rc.name(ev.ToolName),
			SideEffect: ev.Flags&format.SideEffect != 0, Offset: offset,
		}
	case ev.Role == format.RoleToolResult:
		if len(ev.ToolCallID) == 0 {
			return
		}
		delete(rc.started, string(ev.ToolCallID))
		if _, seen := rc.done[string(ev.ToolCallID)]; !seen {
			id := string(ev.ToolCallID)
			rc.done[id] = struct{}{}
			rc.completed = append(rc.completed, id)
		}
	}
	if ev.Ends {
		a.r.EndReason = string(ev.EndReason)
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
// was found (a resume has nothing to skip from otherwise), unfinished
// calls by offset.
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
