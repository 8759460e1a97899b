package loki

import (
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Rejection is an entry Loki refused permanently.
type Rejection struct {
	Ref    int    // Entry.Ref
	Reason string // Loki's text for this entry, or its whole answer when the entry could not be singled out
}

// reqView indexes the entries of one request to map Loki's 400 texts back to
// them. It is built only when a 400 arrives.
type reqView struct {
	b      *Batch
	segs   []segment
	first  []int          // position of each segment's first entry in reasons
	byKey  map[string]int // stream key -> segment
	reason []string       // per entry in wire order; "" = not rejected
	body   string         // Loki's whole answer
	window time.Duration  // the ingester's too-far-behind window
	// uncertain: the answer may hide refusals of entries it does not
	// name (another shard of the stream, a count it cannot explain).
	uncertain bool
	// by marks, per entry, a refusal that is the tenant's configuration
	// rather than the line's (parsedMessage.scope).
	by []scope
}

func newReqView(b *Batch, r request, body string, window time.Duration) *reqView {
	v := &reqView{b: b, segs: b.enc.segs[r.first:r.end], byKey: make(map[string]int), body: body, window: window}
	n := 0
	for i, sg := range v.segs {
		v.first = append(v.first, n)
		v.byKey[b.streams[sg.s].key] = i
		n += sg.hi - sg.lo
	}
	v.reason = make([]string, n)
	v.by = make([]scope, n)
	return v
}

// findSegment returns the segment of the stream Loki printed as ls. Loki may
// have added service_name (when the stream had none) and the sharding labels.
func (v *reqView) findSegment(ls []Label) (int, bool) {
	kept := ls[:0:0]
	for _, l := range ls {
		if l.Name != lokiStreamShard && l.Name != lokiTimeShard {
			kept = append(kept, l)
		}
	}
	if i, ok := v.byKey[string(appendLabelsString(nil, kept))]; ok {
		return i, true
	}
	noService := kept[:0:0]
	for _, l := range kept {
		if l.Name != lokiServiceName {
			noService = append(noService, l)
		}
	}
	if len(noService) == len(kept) {
		return 0, false
	}
	i, ok := v.byKey[string(appendLabelsString(nil, noService))]
	return i, ok
}

// entries returns the entries of segment i.
func (v *reqView) entries(i int) []pushEntry {
	sg := v.segs[i]
	return v.b.streams[sg.s].entries[sg.lo:sg.hi]
}

// rejectWhere rejects the entries of segment i for which match is true (all
// when match is nil), marking them refused by sc, and returns how many
// matched, rejected before or not.
func (v *reqView) rejectWhere(i int, reason string, sc scope, match func(e *pushEntry) bool) int {
	n := 0
	es := v.entries(i)
	for k := range es {
		if match != nil && !match(&es[k]) {
			continue
		}
		n++
		p := v.first[i] + k
		if v.reason[p] == "" {
			v.reason[p] = reason
		}
		v.by[p] = max(v.by[p], sc)
	}
	return n
}

// tenantWide tells whether the answer is about the tenant's configuration
// rather than the lines: every entry refused by a limit of it, or one
// refused because the tenant takes no structured metadata.
func (v *reqView) tenantWide() (all, some bool) {
	all = len(v.by) > 0
	for p, sc := range v.by {
		all = all && v.reason[p] != "" && sc >= scopeLimit
		some = some || sc == scopeTenant
	}
	return all, some
}

// held lists the Refs of every entry refused (rejections): sent again,
// not dead-lettered, while the tenant refuses structured metadata.
func (v *reqView) held() []int {
	rs := v.rejections()
	out := make([]int, len(rs))
	for i, r := range rs {
		out[i] = r.Ref
	}
	return out
}

// rejectRest rejects every entry not rejected yet, with Loki's whole answer.
func (v *reqView) rejectRest() {
	for p := range v.reason {
		if v.reason[p] == "" {
			v.reason[p] = v.body
		}
	}
}

// rejections lists the rejected entries, by Ref.
func (v *reqView) rejections() []Rejection {
	var out []Rejection
	for i, sg := range v.segs {
		refs := v.b.streams[sg.s].refs[sg.lo:sg.hi]
		for k, ref := range refs {
			if r := v.reason[v.first[i]+k]; r != "" {
				out = append(out, Rejection{Ref: ref, Reason: r})
			}
		}
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].Ref < out[b].Ref })
	return out
}

// ingestionBlocked reports Loki's "ingestion blocked" text
// (validation.BlockedIngestionErrorMsg, BlockedIngestionPolicyErrorMsg).
func ingestionBlocked(body string) bool {
	return strings.Contains(body, "ingestion blocked for user '")
}

// mapping is what a 400 says about a request.
type mapping struct {
	rejected []Rejection
	// held are the Refs of the entries refused while the tenant refuses
	// structured metadata and Loki stored others of the request (with a
	// *RetryableError): they are sent again, the others are settled.
	held []int
	// confirm holds the entries not rejected when the answer may hide
	// refusals of entries it does not name (uncertain): they are to be
	// sent again.
	confirm *Batch
}

// mapRejections maps the answer to a 400 for request r to the entries Loki
// refused. An answer that cannot be mapped line by line (a stream-level
// refusal, an unknown text) is a *RetryableError (CauseRequestRefused): the
// request is retried as a whole, never dead-lettered. complete is false
// when the answer was cut at maxAnswerBytes: the entries of the missing
// messages are unknown, so every entry not mapped is rejected (a refused
// entry is never taken as stored). A non-nil error also means the request
// must be retried as a whole (rate-limited entries listed in a 400).
func mapRejections(b *Batch, r request, status int, body string, complete bool, window time.Duration) (mapping, error) {
	body = strings.TrimSpace(body)
	if body == "" {
		body = "loki answered 400 Bad Request without a reason"
	}
	v := newReqView(b, r, body, window)
	ingester := isIngesterBody(body)
	var ok bool
	if ingester {
		var err error
		ok, err = v.mapIngester(body)
		if err != nil {
			re := err.(*RetryableError)
			re.Status = status
			return mapping{}, re
		}
	} else {
		ok = v.mapDistributor(body)
	}
	all, some := v.tenantWide()
	if complete && (!ok || all) {
		// Not about the lines (a refused stream, a tenant or label
		// problem, a tenant refusing structured metadata or a metadata
		// limit that refuses every line) or not understood:
		// dead-lettering every line would lose them for a configuration
		// mistake; retry, and alert.
		return mapping{}, &RetryableError{Cause: CauseRequestRefused, Status: status, Body: truncateBody(body)}
	}
	if complete && some {
		// The tenant refuses the structured metadata some entries carry,
		// and stored the others: those are settled, every refused one is
		// held for the retry (one refused for itself as well is judged
		// again then, once the tenant takes metadata).
		return mapping{held: v.held()}, &RetryableError{Cause: CauseRequestRefused, Status: status, Body: truncateBody(body)}
	}
	if !complete {
		v.rejectRest()
	}
	m := mapping{rejected: v.rejections()}
	if ingester && v.uncertain && len(m.rejected) < len(v.reason) {
		m.confirm = v.remaining()
	}
	return m, nil
}

// remaining returns a batch of the entries not rejected, in their order.
func (v *reqView) remaining() *Batch {
	out := NewBatch()
	for i, sg := range v.segs {
		s := &v.b.streams[sg.s]
		for k := sg.lo; k < sg.hi; k++ {
			if v.reason[v.first[i]+k-sg.lo] != "" {
				continue
			}
			out.copyEntry(s, k)
		}
	}
	return out
}

// groupPrefix matches util.GroupedErrors' "N errors like: " prefixes.
var groupPrefix = regexp.MustCompile(`(?:^|; )(\d+) errors like: `)

// mapDistributor handles the distributor's validation answer: the entry and
// stream errors of pkg/distributor/validator.go, joined by
// util.GroupedErrors ("N errors like: <msg>; M errors like: <msg>", or one
// bare message). It reports false when a message could not be mapped.
func (v *reqView) mapDistributor(body string) bool {
	type piece struct {
		count int
		msg   string
	}
	var pieces []piece
	locs := groupPrefix.FindAllStringSubmatchIndex(body, -1)
	if len(locs) == 0 || locs[0][0] != 0 {
		pieces = append(pieces, piece{1, body})
	} else {
		for k, loc := range locs {
			end := len(body)
			if k+1 < len(locs) {
				end = locs[k+1][0]
			}
			n, _ := strconv.Atoi(body[loc[2]:loc[3]])
			pieces = append(pieces, piece{n, body[loc[1]:end]})
		}
	}
	all := true
	for _, p := range pieces {
		if !v.mapMessage(p.msg, p.count) {
			all = false
		}
	}
	return all
}
