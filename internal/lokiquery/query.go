package lokiquery

import (
	"cmp"
	"context"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Query directions.
const (
	Forward  = "forward"
	Backward = "backward"
)

// DefaultPageLimit is the page size WaitFor uses. Loki refuses pages above
// its max_entries_limit_per_query (default 5000).
const DefaultPageLimit = 1000

// QueryRange runs a log query over [start, end] (both inclusive) and follows
// pagination until every entry is fetched, asking for at most limit entries
// per page; limit must exceed the number of entries sharing one timestamp.
// direction ("forward", "backward"; "" is forward) is the paging
// order; the result is always sorted by time, then line, then stream and
// metadata. A metric query is a *ResultTypeError; a page holding limit
// entries of one timestamp that were all seen before is a *PaginationError.
func (c *Client) QueryRange(ctx context.Context, query string, start, end time.Time, limit int, direction string) ([]Entry, error) {
	const op = "QueryRange"
	if err := checkRange(op, query, start, end); err != nil {
		return nil, err
	}
	if limit <= 0 {
		return nil, &ArgError{Op: op, Arg: "limit", Reason: "must be > 0, got " + strconv.Itoa(limit)}
	}
	if direction == "" {
		direction = Forward
	}
	if direction != Forward && direction != Backward {
		return nil, &ArgError{Op: op, Arg: "direction", Reason: `want "forward" or "backward", got ` + strconv.Quote(direction)}
	}
	p := pager{c: c, query: query, limit: limit, dir: direction, lo: start, hi: end.Add(time.Nanosecond), seen: map[string]struct{}{}}
	if err := p.run(ctx); err != nil {
		return nil, err
	}
	slices.SortFunc(p.out, compareEntries)
	return p.out, nil
}

// pager walks the pages of one QueryRange call. Loki's end is exclusive
// and several entries may share a timestamp, so each next page starts at
// the boundary timestamp of the previous one (like logcli does) and the
// entries seen twice are dropped.
type pager struct {
	c      *Client
	query  string
	limit  int
	dir    string
	lo, hi time.Time // [lo, hi)
	seen   map[string]struct{}
	out    []Entry
}

func (p *pager) run(ctx context.Context) error {
	for {
		page, err := p.c.rangePage(ctx, p.query, p.lo, p.hi, p.limit, p.dir)
		if err != nil {
			return err
		}
		fresh := p.keep(page)
		if len(page) < p.limit {
			return nil
		}
		if p.dir == Forward {
			next := slices.MaxFunc(page, byTime).Time
			if next.Equal(p.lo) && fresh == 0 {
				return &PaginationError{At: next, Limit: p.limit}
			}
			p.lo = next
		} else {
			next := slices.MinFunc(page, byTime).Time.Add(time.Nanosecond)
			if next.Equal(p.hi) && fresh == 0 {
				return &PaginationError{At: next.Add(-time.Nanosecond), Limit: p.limit}
			}
			p.hi = next
		}
	}
}

// keep appends the entries not seen before and returns how many there were.
func (p *pager) keep(page []Entry) int {
	fresh := 0
	for _, e := range page {
		k := entryKey(e)
		if _, dup := p.seen[k]; dup {
			continue
		}
		p.seen[k] = struct{}{}
		p.out = append(p.out, e)
		fresh++
	}
	return fresh
}

// rangePage fetches one page of GET /loki/api/v1/query_range.
func (c *Client) rangePage(ctx context.Context, query string, lo, hi time.Time, limit int, dir string) ([]Entry, error) {
	params := url.Values{
		"query":     {query},
		"start":     {formatTime(lo)},
		"end":       {formatTime(hi)},
		"limit":     {strconv.Itoa(limit)},
		"direction": {dir},
	}
	body, err := c.get(ctx, "QueryRange", "/loki/api/v1/query_range", params)
	if err != nil {
		return nil, err
	}
	return decodeStreams("QueryRange", body)
}

// Instant runs a metric query at one instant and returns its vector (or
// scalar, as one Sample with an empty Metric), sorted by metric labels.
func (c *Client) Instant(ctx context.Context, query string, at time.Time) ([]Sample, error) {
	const op = "Instant"
	if strings.TrimSpace(query) == "" {
		return nil, &ArgError{Op: op, Arg: "query", Reason: "empty"}
	}
	body, err := c.get(ctx, op, "/loki/api/v1/query", url.Values{"query": {query}, "time": {formatTime(at)}})
	if err != nil {
		return nil, err
	}
	out, err := decodeSamples(op, body)
	if err != nil {
		return nil, err
	}
	slices.SortFunc(out, func(a, b Sample) int { return cmp.Compare(canon(a.Metric), canon(b.Metric)) })
	return out, nil
}

// LabelValues returns the sorted values of label name seen in [start, end].
func (c *Client) LabelValues(ctx context.Context, name string, start, end time.Time) ([]string, error) {
	const op = "LabelValues"
	if name == "" {
		return nil, &ArgError{Op: op, Arg: "name", Reason: "empty"}
	}
	if end.Before(start) {
		return nil, &ArgError{Op: op, Arg: "end", Reason: "before start"}
	}
	params := url.Values{"start": {formatTime(start)}, "end": {formatTime(end.Add(time.Nanosecond))}}
	body, err := c.get(ctx, op, "/loki/api/v1/label/"+url.PathEscape(name)+"/values", params)
	if err != nil {
		return nil, err
	}
	vals, err := decodeStrings(op, body)
	if err != nil {
		return nil, err
	}
	slices.Sort(vals)
	return vals, nil
}

func checkRange(op, query string, start, end time.Time) error {
	if strings.TrimSpace(query) == "" {
		return &ArgError{Op: op, Arg: "query", Reason: "empty"}
	}
	if end.Before(start) {
		return &ArgError{Op: op, Arg: "end", Reason: "before start"}
	}
	return nil
}

func byTime(a, b Entry) int { return a.Time.Compare(b.Time) }

// compareEntries orders by time, line, stream labels, metadata.
func compareEntries(a, b Entry) int {
	return cmp.Or(
		a.Time.Compare(b.Time),
		strings.Compare(a.Line, b.Line),
		strings.Compare(canon(a.Stream), canon(b.Stream)),
		strings.Compare(canon(a.Metadata), canon(b.Metadata)),
	)
}

// entryKey identifies an entry across pages.
func entryKey(e Entry) string {
	return canon(e.Stream) + "\x00" + strconv.FormatInt(e.Time.UnixNano(), 10) + "\x00" + e.Line + "\x00" + canon(e.Metadata)
}

// canon renders m with sorted keys, unambiguously.
func canon(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	for _, k := range keys {
		b.WriteString(strconv.Quote(k))
		b.WriteByte('=')
		b.WriteString(strconv.Quote(m[k]))
		b.WriteByte(',')
	}
	return b.String()
}
