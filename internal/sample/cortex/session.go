package cortex

import (
	"fmt"
	"time"

	"github.com/journalship/journalship/internal/sample"
)

// stepPlan says what one agent step does and which faults it carries.
type stepPlan struct {
	tools       int    // tool calls requested by the LLM
	model       string // model of the LLM_REQUEST
	finish      string // finish reason when no tool is called ("" = end_turn)
	firstTool   string // forces the first tool ("" = random)
	failLast    bool   // the last tool fails for good: ERROR, session fails
	approval    bool   // the requested tool needs approval: it does not run
	crash       bool   // the pod dies while appending the first TOOL_RESULT
	dropPair    bool   // fault: the first TOOL_START/TOOL_RESULT pair is lost
	tornResp    bool   // fault: LLM_RESPONSE torn by the first TOOL_START
	badFinish   bool   // fault: finish_reason outside the enum
	compact     bool   // fault: MEMORY_COMPACTED (unknown type) after the checkpoint
	staleError  bool   // fault: an ERROR with a stale seq after the first TOOL_RESULT
	longSummary bool   // fault: first TOOL_START's input_summary over 1024 chars
	badHash     bool   // fault: first TOOL_START's input_hash malformed
	longResult  bool   // first TOOL_RESULT's result_summary exactly at the limit
}

// sessionPlan is one execution of a job on one pod.
type sessionPlan struct {
	pod     string
	pause   time.Duration // time between the previous session's end and this start
	steps   []stepPlan
	end     string // SESSION_END reason; "" when the pod crashes
	resumed bool   // resumes after an approval: WAITING_FOR_APPROVAL -> RUNNING
}

// jobState is what survives from one session of a job to the next: the
// PostgreSQL checkpoint and the conversation's size.
type jobState struct {
	x        *rng
	th       theme
	id       string
	agentID  string
	model    string // the job's usual model
	step     int    // next step index
	ctx      int64  // prompt tokens of the next LLM request
	messages int    // conversation length of the next LLM request
	ckptID   *string
	ckptStep *int
	pending  string // input of the tool waiting for approval
	clock    time.Time
	workerID int64
}

// rec is one event the agent appended, and what happened to its bytes.
type rec struct {
	hdr        *header
	body       any
	model      string // LLM events: the step's model
	prompt     int64
	completion int64
	invalid    bool  // breaks the v1 schema
	unknown    bool  // type outside v1
	stale      int64 // > 0: seq is the last assigned seq minus stale
	drop       bool  // lost before reaching the disk
	torn       bool  // a prefix reached the disk, then the next event's line
	crash      bool  // a prefix reached the disk, then the pod died
}

// sessBuilder appends the events of one session.
type sessBuilder struct {
	g        *gen
	js       *jobState
	sid      string
	t        time.Time
	recs     []*rec
	lastStep int
}

// timestampLayout is RFC 3339 in UTC with milliseconds.
const timestampLayout = "2006-01-02T15:04:05.000Z"

// add appends an event dt milliseconds after the previous one.
func (b *sessBuilder) add(typ string, body any, h *header, dt int64) *rec {
	b.t = b.t.Add(millis(dt))
	h.Type, h.Timestamp, h.JobID, h.SessionID = typ, b.t.UTC().Format(timestampLayout), b.js.id, b.sid
	r := &rec{hdr: h, body: body}
	b.recs = append(b.recs, r)
	return r
}

// buildSession returns the events of one session starting at start.
func (g *gen) buildSession(js *jobState, p sessionPlan, start time.Time) []*rec {
	b := &sessBuilder{g: g, js: js, sid: js.x.uuidV7(start), t: start, lastStep: js.step}
	b.open(p)
	for _, sp := range p.steps {
		if stop := b.step(sp); stop {
			break
		}
	}
	if p.end != "" {
		b.close(p.end)
	}
	js.clock = b.t
	return b.recs
}

// open appends SESSION_START, CHECKPOINT_LOADED and, after an approval,
// the status change back to RUNNING.
func (b *sessBuilder) open(p sessionPlan) {
	js, x := b.js, b.js.x
	ss := &evSessionStart{BufferSchemaVersion: 1, AgentID: js.agentID, PodName: p.pod}
	if x.Chance(0.9) {
		js.workerID += int64(x.Between(1, 40))
		w := fmt.Sprint(js.workerID)
		ss.WorkerJobID = &w
	}
	b.add(TypeSessionStart, ss, &ss.header, 0)
	cl := &evCheckpointLoaded{CheckpointID: js.ckptID, StepIndex: js.ckptStep}
	if js.ckptID != nil {
		v := 1
		cl.SchemaVersion = &v
	}
	b.add(TypeCheckpointLoaded, cl, &cl.header, x.Between64(4, 60))
	if p.resumed {
		st := &evStateTransition{OldStatus: "WAITING_FOR_APPROVAL", NewStatus: "RUNNING",
			Reason: "approval granted by " + pick(x, approvers)}
		b.add(TypeStateTransition, st, &st.header, x.Between64(2, 20))
	}
}

var approvers = []string{"maria.k@acme.dev", "j.okafor@acme.dev", "sre-oncall@acme.dev"}

// close appends the events that end the session with reason.
func (b *sessBuilder) close(reason string) {
	x := b.js.x
	switch reason {
	case EndApprovalPause:
		b.approval()
		b.transition("RUNNING", "WAITING_FOR_APPROVAL", "approval required for "+approvalTool)
	case EndCompleted:
		b.transition("RUNNING", "COMPLETED", "agent finished with end_turn")
	case EndFailed:
		b.transition("RUNNING", "FAILED", "non-retryable tool failure")
	case EndCancelled:
		b.transition("RUNNING", "CANCELLED", "cancelled by operator via dashboard")
	}
	se := &evSessionEnd{Reason: reason, TotalEvents: len(b.recs) + 1, FinalStepIndex: b.lastStep}
	b.add(TypeSessionEnd, se, &se.header, x.Between64(1, 8))
}

func (b *sessBuilder) transition(from, to, why string) {
	st := &evStateTransition{OldStatus: from, NewStatus: to, Reason: why}
	b.add(TypeStateTransition, st, &st.header, b.js.x.Between64(1, 15))
}

// approval appends APPROVAL_REQUESTED for the pending tool call.
func (b *sessBuilder) approval() {
	js, x := b.js, b.js.x
	id := x.uuidV7(b.t)
	ar := &evApprovalRequested{
		ApprovalRequestID: id,
		StepIndex:         b.lastStep,
		Action:            approvalTool + " " + js.pending,
		TokenHash:         sample.SHA256Hex("approval-token", id, js.id),
		Routing: approvalRouting{Channel: "slack", Target: "#" + js.th.service + "-approvals",
			Approvers: approvers[:x.Between(1, len(approvers))]},
		ExpiresAt: b.t.Add(24 * time.Hour).UTC().Format(timestampLayout),
	}
	b.add(TypeApprovalRequested, ar, &ar.header, x.Between64(3, 30))
}
