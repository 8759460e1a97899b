package codex

import (
	"strconv"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/integrity"
)

// Tokens (docs/formats/codex.md, Tokens and cost). Codex reports usage in
// token_count events: the session's running totals (total_token_usage)
// and the last response's usage (last_token_usage). The event repeats:
// it is written again with unchanged totals when rate limits arrive, and
// after a compaction (then with a context estimate as the last usage).
// So a line ships how far the totals grew since the file's previous
// token_count: each response is counted once, a repeat counts nothing.

// counters are a TokenUsage's counters, in the order of counterNames.
type counters [5]int64

var counterNames = [5]string{"input", "cached_input", "output", "reasoning_output", "total"}

// Indexes in counters.
const (
	cInput = iota
	cCached
	cOutput
	cReasoning
	cTotal
)

// countersAt reads the TokenUsage object captured at id.
func countersAt(c *integrity.Capture, id int) counters {
	var v counters
	for i := range v {
		v[i] = format.TokenCount(c, id+uInput+i)
	}
	return v
}

// grew tells whether every counter of t is at least b's.
func (t *counters) grew(b *counters) bool {
	for i := range t {
		if t[i] < b[i] {
			return false
		}
	}
	return true
}

// minus returns t-b, counter by counter.
func (t *counters) minus(b *counters) counters {
	var d counters
	for i := range t {
		d[i] = t[i] - b[i]
	}
	return d
}

// usage is the neutral usage of a shipped vector: Input is the whole
// prompt (the cached part included, as OpenAI counts it), CacheRead the
// cached part (at most Input), Output the completion (the reasoning
// included, never added again). OpenAI charges no cache writes.
func (t *counters) usage() format.Usage {
	return format.Usage{Input: t[cInput], CacheRead: min(t[cCached], t[cInput]), Output: t[cOutput], Has: true}
}

// used tells whether the vector counts any prompt or completion token.
func (t *counters) used() bool { return t[cInput] > 0 || t[cOutput] > 0 || t[cCached] > 0 }

// usage sets the usage a valid token_count ships (docs/formats/codex.md,
// Tokens and cost): the growth of its totals past the file's previous
// totals; a file's first one its last usage; after totals that went
// down (a reset), the last usage. A token_count without info, or that
// ships nothing, is a status line; a schema-invalid one ships nothing
// and leaves the totals as they were. Without a state nothing tells what
// the lines before counted: nothing ships (usage_unverified).
func (j *judge) usage(s *State, f *facts, a *integrity.Arena, ev *format.Event) {
	if f.e != eTokenCount {
		return
	}
	c := &j.c
	if ev.Outcome != integrity.Valid || c.Get(fInfo).Kind != integrity.JSONObject {
		ev.Role = format.RoleStatus
		return
	}
	if s == nil {
		ev.Role = format.RoleStatus
		ev.Note(NoteUsageUnverified, nil)
		return
	}
	total, last := countersAt(c, fTotal), countersAt(c, fLast)
	var ship counters
	switch {
	case !s.hasBase:
		ship = last
		if total != last {
			ev.Note(NoteUsageBaseline, nil)
		}
	case total == s.base:
		// A repeat: rate limits, a compaction's estimate.
	case total.grew(&s.base):
		switch d := total.minus(&s.base); {
		case d == last:
			ship = d
		case total == last:
			ship = last // totals restarted at zero, past the old ones
			ev.Note(NoteUsageReset, nil)
		default:
			ship = d
			ev.Note(NoteUsageInconsistent, nil)
		}
	default:
		ev.Note(NoteUsageReset, a.Copy(j.regression(&s.base, &total)))
		if last[cInput] > 0 || last[cOutput] > 0 {
			ship = last
		}
	}
	s.base, s.hasBase = total, true
	if !ship.used() {
		ev.Role = format.RoleStatus
		return
	}
	s.last.set, s.last.shipped = true, ship
	ev.Usage, ev.Bill = ship.usage(), s.bill(&total)
	if len(s.model) > 0 {
		ev.Model = a.Copy(s.model)
	} else {
		ev.Note(NoteModelUnknown, nil)
	}
}

// regression formats the first counter that went down from b to t
// ("input 1355071 → 37208").
func (j *judge) regression(b, t *counters) []byte {
	j.num = j.num[:0]
	for i := range t {
		if t[i] < b[i] {
			j.num = append(j.num, counterNames[i]...)
			j.num = append(j.num, ' ')
			j.num = strconv.AppendInt(j.num, b[i], 10)
			j.num = append(j.num, " → "...)
			j.num = strconv.AppendInt(j.num, t[i], 10)
			break
		}
	}
	return j.num
}

// bill is the node-wide key of the response whose usage brought the
// totals to t (format.Event.Bill): the session whose history the line
// belongs to (the latest session_meta's id; the file's when none) and
// the totals. A fork or a sub-agent copies its parent's lines verbatim
// after the parent's session_meta, so a copied response has the same key
// in every file that holds it, and is counted once on the node.
func (s *State) bill(t *counters) uint64 {
	h := s.origin
	if h == 0 {
		h = hash(s.session)
	}
	for _, n := range t {
		h = (h ^ uint64(n)) * 1099511628211
		h ^= h >> 29
	}
	return h | 1 // never 0
}

// Withdraw implements format.Withdrawer: the last judged line will not be
// shipped (too long to send), so what it shipped is taken back out of the
// base: the base becomes its totals less its usage, and the next
// token_count ships that usage with its own growth. Restoring the base
// the line found would not do: a file's first token_count found none, and
// the next one would then ship only its last usage, losing what grew
// between the two (a schema-invalid token_count's response); a reset's
// base lies above the totals that follow, and the next line would be a
// reset again, shipping only its own. No counter of the base goes below
// zero: a line whose last usage exceeds its totals (garbled counters)
// would otherwise have the next line's growth overflow into negative
// tokens, priced at a negative cost.
func (s *State) Withdraw() {
	if !s.last.set {
		return
	}
	s.last.set = false
	for i := range s.base {
		s.base[i] = max(0, s.base[i]-s.last.shipped[i])
	}
}
