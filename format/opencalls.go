package format

import (
	"cmp"
	"fmt"
	"slices"
)

// OpenCalls are a file's calls not answered yet (tool uses, function
// calls), for State.Open: at most a bound of them listed with their id
// and tool name, those past it only counted. An answered entry's buffers
// are reused by a later call: once they have grown to the ids and names
// a file uses, issuing a call allocates nothing. The zero value is empty
// and ready.
type OpenCalls struct {
	list      []OpenCall
	issued    int64 // calls listed so far, for their order
	untracked int64 // unanswered calls past the bound
}

// OpenCall is one unanswered call.
type OpenCall struct {
	// Hash is the call id's hash, as the format keys its calls.
	Hash     uint64
	ID, Name []byte
	// Extra is the format's own (the turn a Codex call was issued in).
	Extra uint32
	order int64
}

// Issue lists call h with its id and tool name (copied) and extra, unless
// max calls are listed already: then it is only counted, and Issue
// returns false.
func (o *OpenCalls) Issue(h uint64, id, name []byte, extra uint32, max int) bool {
	if len(o.list) >= max {
		o.untracked++
		return false
	}
	if len(o.list) < cap(o.list) {
		o.list = o.list[:len(o.list)+1] // reuse the entry's buffers
	} else {
		o.list = append(o.list, OpenCall{})
	}
	c := &o.list[len(o.list)-1]
	o.issued++
	c.Hash, c.Extra, c.order = h, extra, o.issued
	c.ID, c.Name = append(c.ID[:0], id...), append(c.Name[:0], name...)
	return true
}

// Find returns the index of listed call h, or -1.
func (o *OpenCalls) Find(h uint64) int {
	for i := range o.list {
		if o.list[i].Hash == h {
			return i
		}
	}
	return -1
}

// At returns listed call i.
func (o *OpenCalls) At(i int) *OpenCall { return &o.list[i] }

// Answer takes listed call i off the list and returns it: its buffers
// stay valid until the next Issue.
func (o *OpenCalls) Answer(i int) *OpenCall {
	last := len(o.list) - 1
	o.list[i], o.list[last] = o.list[last], o.list[i] // keep the buffers for reuse
	o.list = o.list[:last]
	return &o.list[:last+1][last]
}

// AnswerUntracked counts one call answered among those past the bound,
// when there is one.
func (o *OpenCalls) AnswerUntracked() {
	if o.untracked > 0 {
		o.untracked--
	}
}

// Untracked is how many unanswered calls are past the bound.
func (o *OpenCalls) Untracked() int64 { return o.untracked }

// Len is how many calls are listed.
func (o *OpenCalls) Len() int { return len(o.list) }

// Sentences lists the unanswered calls for people, in the order they
// were issued: "<noun> <id> (<name>) was never answered", then "<n> more
// <plural> were never answered"; nil when there is none.
func (o *OpenCalls) Sentences(noun, plural string) []string {
	if len(o.list) == 0 && o.untracked == 0 {
		return nil
	}
	list := slices.Clone(o.list)
	slices.SortFunc(list, func(a, b OpenCall) int { return cmp.Compare(a.order, b.order) })
	out := make([]string, 0, len(list)+1)
	for _, c := range list {
		if len(c.Name) > 0 {
			out = append(out, fmt.Sprintf("%s %s (%s) was never answered", noun, c.ID, c.Name))
		} else {
			out = append(out, fmt.Sprintf("%s %s was never answered", noun, c.ID))
		}
	}
	if o.untracked > 0 {
		out = append(out, fmt.Sprintf("%d more %s were never answered", o.untracked, plural))
	}
	return out
}
