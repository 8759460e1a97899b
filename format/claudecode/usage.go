package claudecode

import (
	"strconv"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/integrity"
)

// Tokens (docs/formats/claude-code.md, Tokens and cost). Claude Code writes
// one assistant line per content block, each with the response's usage (a
// growing snapshot before CLI 2.1.97). A file's State keeps, per response
// (message.id), the usage already counted; a line ships only how far each
// counter grew, so that Loki's sums count every response once, at its
// largest usage.

// counters are the neutral usage's counters, in the order of counterNames.
type counters [5]int64

var counterNames = [5]string{"input", "output", "cache_read", "cache_write", "cache_write_1h"}

// Indexes in counters.
const (
	cInput = iota
	cOutput
	cRead
	cWrite
	c1h
)

func countersOf(u *format.Usage) counters {
	return counters{u.Input, u.Output, u.CacheRead, u.CacheWrite, u.CacheWrite1h}
}

func (c *counters) usage() format.Usage {
	return format.Usage{Input: c[0], Output: c[1], CacheRead: c[2], CacheWrite: c[3], CacheWrite1h: c[4], Has: true}
}

// counted is a response's usage counted so far in the file, and the hash
// of the requestId it was counted under (0: none).
type counted struct {
	c   counters
	req uint64
}

// usageAt reads the usage object at id (pUsage, pStartUsage, pDeltaUsage)
// as the neutral usage (format.AnthropicUsage).
func (j *judge) usageAt(id int) (format.Usage, bool) {
	return format.AnthropicUsage(&j.c, id)
}

// usage sets the usage a valid line ships: an assistant line's, a
// partial-message capture's message_start and message_delta
// (stream.go), a result's top-up (topUp). Lines that count nothing:
// schema-invalid ones (they do not advance the counted usage either),
// <synthetic> ones, a fork's copies (another session's lines) and replays
// (a response counted in the main transcript, or in this file under
// another requestId). Without a state nothing tells which part of the
// line's usage its response's other lines already counted: the line ships
// none, annotated usage_unverified (its own usage is in its text).
func (j *judge) usage(s *State, f *facts, a *integrity.Arena, ev *format.Event) {
	if ev.Outcome != integrity.Valid {
		if f.t == tResult && s != nil {
			s.endRun()
		}
		return
	}
	switch f.t {
	case tAssistant:
		if !f.synthetic {
			j.assistantUsage(s, f, a, ev)
		}
	case tStreamEvent:
		j.streamUsage(s, f, a, ev)
	case tResult:
		if s != nil {
			j.topUp(s, a, ev)
			s.endRun()
		}
	}
}

// assistantUsage counts an assistant line's message.usage under its
// message.id and requestId.
func (j *judge) assistantUsage(s *State, f *facts, a *integrity.Arena, ev *format.Event) {
	u, ok := j.usageAt(pUsage)
	if !ok {
		return
	}
	if s == nil {
		ev.Note(NoteUsageUnverified, nil)
		return
	}
	if f.copy {
		return
	}
	c := &j.c
	id, _ := format.NonEmptyStr(c, pMessageID) // required of a valid line
	var req uint64
	if r, ok := format.NonEmptyStr(c, pRequestID); ok {
		req = hash(r) | 1 // never 0
	}
	j.countResponse(s, hash(id), req, u, 0, a, ev)
}

// countResponse counts usage u of response h (requested under req, 0:
// unknown) on the line being judged, whose model is ev.Model: the line
// ships how far each counter grew past what the response counted so far
// (docs/formats/claude-code.md, Tokens and cost), billed to h and req
// (see bill). unstated has bit i set
// for a counter the line's usage does not state: lower there is no
// regression.
func (j *judge) countResponse(s *State, h, req uint64, u format.Usage, unstated uint8, a *integrity.Arena, ev *format.Event) {
	if _, ok := s.mainResponses[h]; ok {
		ev.Note(NoteResponseReplayed, nil)
		return
	}
	prev, found := s.responses[h]
	s.last.h, s.last.before, s.last.had, s.last.set = h, prev, found, true
	if !found {
		if len(s.responses) < s.max {
			if s.responses == nil {
				s.responses = make(map[uint64]counted)
			}
			s.responses[h] = counted{c: countersOf(&u), req: req}
		}
		ev.Usage, ev.Bill = u, bill(h, req) // untracked past the bound: the whole usage
		s.counted(ev)
		return
	}
	if prev.req != 0 && req != 0 && prev.req != req {
		s.last.set = false
		ev.Note(NoteResponseReplayed, nil)
		return
	}
	if prev.req == 0 {
		prev.req = req
	}
	line := countersOf(&u)
	var grown counters
	var any bool
	j.num = j.num[:0]
	for i := range line {
		switch {
		case line[i] > prev.c[i]:
			grown[i], prev.c[i], any = line[i]-prev.c[i], line[i], true
		case line[i] < prev.c[i] && unstated&(1<<i) == 0:
			if len(j.num) > 0 {
				j.num = append(j.num, ", "...)
			}
			j.num = append(j.num, counterNames[i]...)
			j.num = append(j.num, ' ')
			j.num = strconv.AppendInt(j.num, prev.c[i], 10)
			j.num = append(j.num, " → "...)
			j.num = strconv.AppendInt(j.num, line[i], 10)
		}
	}
	s.responses[h] = prev
	if len(j.num) > 0 {
		ev.Note(NoteUsageRegression, a.Copy(j.num))
	}
	if any {
		// Billed under the request the response was counted under, so a
		// later line that states no requestId is the same bill.
		ev.Usage, ev.Bill = grown.usage(), bill(h, prev.req)
		s.counted(ev)
	}
}

// bill is the node-wide key of response h requested under req
// (format.Event.Bill): message.id and requestId, which a copy of the
// response in another session keeps. Without a requestId there is none:
// a gateway that answers every response with one message.id and no
// requestId would otherwise fold distinct sessions' responses into one
// (as ccusage scopes them by session, its issue #1635).
func bill(h, req uint64) uint64 {
	if req == 0 {
		return 0
	}
	return (h ^ req*0x9e3779b97f4a7c15) | 1 // never 0
}
