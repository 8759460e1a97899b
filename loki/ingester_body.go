package loki

import (
	"strings"
	"time"
)

// The ingester's answer for entries it refused in one stream
// (pkg/ingester/stream.go, errorForFailedEntries), at most
// ingester.max-ignored-stream-errors (default 10) lines of
//
//	entry with timestamp %s ignored, reason: '%s',
//
// then
//
//	user '%s', total ignored: %d out of %d for stream: %s
const (
	ingesterLinePrefix = "entry with timestamp "
	ingesterLineInfix  = " ignored, reason: '"
	ingesterLineSuffix = "',"
	ingesterTotalInfix = "', total ignored: "
	// timeStringLayout is time.Time.String's layout.
	timeStringLayout = "2006-01-02 15:04:05.999999999 -0700 MST"
	// rateLimitPrefix starts validation.ErrStreamRateLimit's text.
	rateLimitPrefix = "Per stream rate limit exceeded"
)

func isIngesterBody(body string) bool {
	last := body[strings.LastIndexByte(body, '\n')+1:]
	return strings.HasPrefix(last, "user '") && strings.Contains(last, ingesterTotalInfix)
}

// ingesterLine is one "entry with timestamp ... ignored" line.
type ingesterLine struct {
	ts     time.Time
	reason string
}

// mapIngester maps the ingester's answer. It reports false when some refused
// entry could not be singled out (its stream is then refused as a whole, or
// the whole request when the stream is unknown), and a *RetryableError when
// entries were refused by the per-stream rate limit.
func (v *reqView) mapIngester(body string) (bool, error) {
	if strings.Contains(body, ingesterLineInfix+rateLimitPrefix) {
		// Not stored, but only for now: send the whole request again.
		return false, &RetryableError{Cause: CauseRateLimited, Body: truncateBody(body)}
	}
	lines := strings.Split(body, "\n")
	total, received, labels, ok := parseIngesterTotal(lines[len(lines)-1])
	if !ok {
		return false, nil
	}
	seg, found := v.findSegment(labels)
	if !found {
		return false, nil
	}
	if len(v.segs) > 1 {
		// Several streams in one request: the ingester answers for the
		// last one it stored (pkg/ingester/instance.go, Push).
		v.uncertain = true
	}
	if received != len(v.entries(seg)) {
		// The ingester got fewer entries than were sent: the distributor
		// refused the others, and its refusals are not in this answer.
		v.uncertain = true
	}
	listed := make([]ingesterLine, 0, len(lines)-1)
	for _, l := range lines[:len(lines)-1] {
		il, ok := parseIngesterLine(l)
		if !ok {
			v.rejectWhere(seg, body, scopeLine, nil)
			return true, nil
		}
		listed = append(listed, il)
	}
	for _, il := range listed {
		ts := il.ts.UnixNano()
		if v.rejectWhere(seg, il.reason, scopeLine, func(e *pushEntry) bool { return e.Timestamp.UnixNano() == ts }) == 0 {
			v.rejectWhere(seg, body, scopeLine, nil) // e.g. timestamps altered by increment_duplicate_timestamp
			return true, nil
		}
	}
	if sharded(labels) {
		// The distributor split the stream into shards, each stored as
		// a stream of its own: the answer is one shard's, the others'
		// refusals are hidden.
		v.uncertain = true
		return true, nil
	}
	if total > len(listed) && !v.inferBehind(seg, listed, total) {
		// The list was cut at max-ignored-stream-errors and the rest
		// cannot be told: the entries not named are neither taken as
		// stored nor as refused.
		v.uncertain = true
	}
	return true, nil
}

// sharded tells whether Loki printed the labels of a shard of the stream
// (stream or time sharding).
func sharded(ls []Label) bool {
	for _, l := range ls {
		if l.Name == lokiStreamShard || l.Name == lokiTimeShard {
			return true
		}
	}
	return false
}

// parseIngesterTotal parses "user '%s', total ignored: %d out of %d for
// stream: %s": the entries refused, and the entries the ingester received.
func parseIngesterTotal(line string) (total, received int, ls []Label, ok bool) {
	i := strings.LastIndex(line, ingesterTotalInfix)
	if i < 0 {
		return 0, 0, nil, false
	}
	c := newScanner(line[i:])
	c.lit(ingesterTotalInfix)
	total = c.int()
	c.lit(" out of ")
	received = c.int()
	c.lit(" for stream: ")
	ls = c.labels()
	return total, received, ls, c.end()
}

// parseIngesterLine parses "entry with timestamp %s ignored, reason: '%s',".
func parseIngesterLine(line string) (ingesterLine, bool) {
	if !strings.HasPrefix(line, ingesterLinePrefix) || !strings.HasSuffix(line, ingesterLineSuffix) {
		return ingesterLine{}, false
	}
	line = strings.TrimSuffix(line[len(ingesterLinePrefix):], ingesterLineSuffix)
	i := strings.Index(line, ingesterLineInfix)
	if i < 0 {
		return ingesterLine{}, false
	}
	stamp := line[:i]
	if j := strings.Index(stamp, " m="); j >= 0 { // monotonic clock reading
		stamp = stamp[:j]
	}
	ts, err := time.Parse(timeStringLayout, stamp)
	if err != nil {
		return ingesterLine{}, false
	}
	return ingesterLine{ts: ts, reason: line[i+len(ingesterLineInfix):]}, true
}
