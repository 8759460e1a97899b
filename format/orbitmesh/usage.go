package orbitmesh

import (
	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/integrity"
)

// Tokens (docs/formats/orbitmesh.md, Model, tokens and cost). A Claude
// provider's metric records carry its stream-json events in raw: each
// response's message_start with its model and initial usage, then its
// message_delta with the final, cumulative usage. A file's State keeps the
// latest response's usage counted so far; a line ships how far each
// counter grew, so that Loki's sums count every response once, at its
// final usage (and at its initial usage when the stream was cut before
// its message_delta).

// counters are a usage's counters: input, output, cache read, cache
// write, one-hour cache write.
type counters [5]int64

func countersOf(u *format.Usage) counters {
	return counters{u.Input, u.Output, u.CacheRead, u.CacheWrite, u.CacheWrite1h}
}

func (c *counters) usage() format.Usage {
	return format.Usage{Input: c[0], Output: c[1], CacheRead: c[2], CacheWrite: c[3], CacheWrite1h: c[4], Has: true}
}

// response is the usage counted for one provider response; id is the hash
// of its message id (0: a message_delta whose message_start the file does
// not hold). owed is what lines of it counted but did not ship (withdrawn:
// the pipeline did not send them), shipped by its next line.
type response struct {
	id      uint64
	c, owed counters
	set     bool
}

// countUsage sets the usage a valid metric line ships and the model it is
// attributed to: the response's own (its message_start's), else the last
// model the file's provider events named. It remembers what the line
// ships, for Withdraw.
func (s *State) countUsage(f *fields, a *integrity.Arena, ev *format.Event) {
	s.undone = true
	if f.start && f.response != s.resp.id {
		s.resp = response{id: f.response, c: countersOf(&f.usage), set: true}
		ev.Usage = f.usage
		s.shipped = s.resp.c
		s.respModel = append(s.respModel[:0], ev.Model...)
		return
	}
	if !s.resp.set {
		s.resp = response{c: countersOf(&f.usage), set: true}
		ev.Usage = f.usage
		s.shipped = s.resp.c
		s.respModel = append(s.respModel[:0], s.lastModel...)
	} else {
		grown, any := s.resp.grow(countersOf(&f.usage))
		if s.resp.owed != (counters{}) {
			grown, any = grown.plus(&s.resp.owed), true
			s.resp.owed = counters{}
		}
		s.shipped = grown
		if any {
			ev.Usage = grown.usage()
		}
	}
	if len(ev.Model) == 0 && len(s.respModel) > 0 {
		ev.Model = a.Copy(s.respModel)
	}
}

// grow raises the counted counters to line's and returns by how much each
// grew; a counter lower than counted (an event without it) grows nothing.
func (r *response) grow(line counters) (grown counters, any bool) {
	for i := range line {
		if line[i] > r.c[i] {
			grown[i], r.c[i], any = line[i]-r.c[i], line[i], true
		}
	}
	return grown, any
}

// plus returns c+d, counter by counter.
func (c *counters) plus(d *counters) counters {
	var s counters
	for i := range c {
		s[i] = c[i] + d[i]
	}
	return s
}

// Withdraw implements format.Withdrawer: the last judged line's usage is
// not counted (the pipeline does not ship the line), so the response's
// next event ships it, with its own growth. The response stays the one
// the line named: restoring the one before would have a withdrawn
// message_start's message_delta grow from the previous response's
// counters, and ship less than its own response's usage (or nothing).
// A response with no later line loses the withdrawn line's usage.
func (s *State) Withdraw() {
	if s.undone {
		s.resp.owed = s.resp.owed.plus(&s.shipped)
		s.undone = false
	}
}

// usageWithoutState is what a line judged without its file's state ships:
// a message_start's usage (the first of its response); a message_delta
// ships none, as nothing tells what its message_start counted.
func usageWithoutState(f *fields, ev *format.Event) {
	if f.hasUsage && f.start && ev.Outcome == integrity.Valid {
		ev.Usage = f.usage
	}
}
