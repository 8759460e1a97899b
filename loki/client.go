package loki

import (
	"context"
	"errors"
	"net/http"
	"sort"

	"github.com/prometheus/client_golang/prometheus"
)

// StatusIngestionBlocked is the status Loki answers by default while a
// tenant's ingestion is blocked (limits.block-ingestion-status-code).
const StatusIngestionBlocked = 260

// maxAnswerBytes bounds how much of an answer is read. A longer 400 answer is
// cut, cannot be mapped completely and rejects the rest of its request.
const maxAnswerBytes = 4 << 20

// Result tells what happened to a batch.
type Result struct {
	Requests int         // requests that got an answer
	Entries  int         // entries Loki stored
	Bytes    int         // compressed bytes sent
	Rejected []Rejection // entries Loki refused permanently, sorted by Ref
	// Unsettled lists, with a *RetryableError, the Refs of the entries
	// not known to be stored: those of the request that failed and of
	// every request after it. The other entries were answered 2xx (or are
	// in Rejected): the caller records them before it retries, so a retry
	// sends only what Loki does not have.
	Unsettled []int
}

// Client pushes batches to one Loki. It is safe for concurrent use (each
// Batch by one goroutine at a time).
type Client struct {
	cfg     Config
	http    *http.Client
	tr      *http.Transport
	auth    *authorizer
	m       *metrics
	pushURL string
}

// New validates cfg, reads its files (password, token, TLS) and builds a
// client. Its metrics are registered on reg when reg is not nil.
func New(cfg Config, reg prometheus.Registerer) (*Client, error) {
	if cfg.UserAgent == "" {
		cfg.UserAgent = DefaultConfig().UserAgent
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	tr, err := newTransport(cfg)
	if err != nil {
		return nil, err
	}
	auth, err := newAuthorizer(cfg)
	if err != nil {
		return nil, err
	}
	m, err := newMetrics(reg)
	if err != nil {
		return nil, err
	}
	hc := &http.Client{
		Transport: tr,
		// Loki does not redirect; a redirect means a wrong URL.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	return &Client{cfg: cfg, http: hc, tr: tr, auth: auth, m: m, pushURL: cfg.pushURL()}, nil
}

// Close releases idle connections.
func (c *Client) Close() { c.tr.CloseIdleConnections() }

// maxConfirmations bounds how often the entries left after an ingester's
// 400 are sent again to learn of refusals that answer did not report.
const maxConfirmations = 3

// Push sends the whole batch, split into requests of at most MaxRequestBytes,
// synchronously. It returns only after every request got an answer.
//
// With a nil error every entry of the batch is stored except those in
// Result.Rejected. A *RetryableError stops the push at the failing request:
// Result.Unsettled lists the entries to send again later, the others were
// answered (stored, or in Result.Rejected). A *PermanentError means some request was
// refused as a whole: its entries are in Result.Rejected, the other requests
// were still sent and stored.
//
// A 400 from an ingester names at most ten refused entries of one stream
// and counts them all. When the count and the names agree, or the names
// and Loki's too-far-behind rule account for the count, the other entries
// are stored. Otherwise (a sharded stream, whose other shards' refusals
// the answer hides; a count the rule cannot explain) the entries it did
// not name are uncertain and are sent again, at most maxConfirmations
// times: nothing is taken as stored that may not be, at the price of a
// possible duplicate, counted in journalship_loki_uncertain_entries_total.
func (c *Client) Push(ctx context.Context, b *Batch) (Result, error) {
	res, err := c.push(ctx, b, 0)
	sort.SliceStable(res.Rejected, func(i, j int) bool { return res.Rejected[i].Ref < res.Rejected[j].Ref })
	return res, err
}

func (c *Client) push(ctx context.Context, b *Batch, depth int) (Result, error) {
	return c.pushLimit(ctx, b, c.cfg.MaxRequestBytes, depth)
}

// pushLimit is push with requests of at most limit bytes.
func (c *Client) pushLimit(ctx context.Context, b *Batch, limit, depth int) (Result, error) {
	var res Result
	if b == nil || b.Len() == 0 {
		return res, nil
	}
	var permanent error
	reqs := b.plan(limit, c.cfg.MultiStreamRequests)
	for k, r := range reqs {
		raw, body, err := b.encode(r)
		if err != nil {
			return res.unsettle(b, reqs[k:]), err
		}
		status, answer, complete, err := c.post(ctx, body, r.tenant)
		if err != nil {
			c.m.requests.WithLabelValues(causeOf(err)).Inc()
			return res.unsettle(b, reqs[k:]), err
		}
		res.Requests++
		res.Bytes += len(body)
		c.m.bytes.Add(float64(len(body)))
		c.m.rawBytes.Add(float64(len(raw)))
		if (status == http.StatusRequestEntityTooLarge || overRate(status, answer)) && r.entries > 1 {
			// A proxy in front of Loki (or Loki's server limit) takes
			// smaller requests than Max_Request_Bytes, or the tenant's
			// ingestion rate is below one request's bytes (its burst
			// may be too, and then the request would wait forever): the
			// same entries again, in halves, down to one entry a
			// request.
			c.m.requests.WithLabelValues(OutcomeSplit).Inc()
			sub, err := c.pushLimit(ctx, b.subBatch(r), max(r.size/2, 1), depth)
			res.add(sub)
			if err != nil && !isPermanent(err) {
				return res.unsettle(b, reqs[k+1:]), err
			}
			if err != nil && permanent == nil {
				permanent = err
			}
			continue
		}
		m, err := c.judge(b, r, status, answer, complete)
		if err != nil && m.held != nil {
			// Loki stored the entries it did not hold back.
			res.Entries += r.entries - len(m.held)
			c.m.entries.Add(float64(r.entries - len(m.held)))
			res.Unsettled = append(res.Unsettled, m.held...)
			return res.unsettle(b, reqs[k+1:]), err
		}
		if err != nil && !isPermanent(err) {
			return res.unsettle(b, reqs[k:]), err
		}
		if err != nil && permanent == nil {
			permanent = err
		}
		res.Rejected = append(res.Rejected, m.rejected...)
		c.m.rejected.Add(float64(len(m.rejected)))
		if m.confirm == nil || depth >= maxConfirmations {
			res.Entries += r.entries - len(m.rejected)
			c.m.entries.Add(float64(r.entries - len(m.rejected)))
			continue
		}
		c.m.uncertain.Add(float64(m.confirm.Len()))
		sub, err := c.pushLimit(ctx, m.confirm, limit, depth+1)
		res.add(sub)
		if err != nil && !isPermanent(err) {
			return res.unsettle(b, reqs[k+1:]), err
		}
		if err != nil && permanent == nil {
			permanent = err
		}
	}
	return res, permanent
}

// judge turns Loki's answer to request r into rejected entries or an error,
// and counts the outcome.
func (c *Client) judge(b *Batch, r request, status int, answer string, complete bool) (mapping, error) {
	var m mapping
	err := classifyStatus(status, answer)
	if err == nil && status == http.StatusBadRequest {
		m, err = mapRejections(b, r, status, answer, complete, c.cfg.maxBehind())
	}
	var pe *PermanentError
	if errors.As(err, &pe) {
		m.rejected = rejectAll(b, r, "loki refused the request: "+pe.Error())
	}
	outcome := OutcomeSuccess
	switch {
	case pe != nil:
		outcome = OutcomePermanent
	case err != nil:
		outcome = causeOf(err)
	case len(m.rejected) > 0:
		outcome = OutcomePartial
	}
	c.m.requests.WithLabelValues(outcome).Inc()
	return m, err
}

// add counts a sub-push's result into r.
func (r *Result) add(sub Result) {
	r.Requests += sub.Requests
	r.Bytes += sub.Bytes
	r.Entries += sub.Entries
	r.Rejected = append(r.Rejected, sub.Rejected...)
	r.Unsettled = append(r.Unsettled, sub.Unsettled...)
}

// unsettle adds the Refs of the entries of reqs (requests of b's last
// plan not answered) to Unsettled, and returns r. It allocates only on
// the failure path.
func (r Result) unsettle(b *Batch, reqs []request) Result {
	for _, q := range reqs {
		b.requestEntries(q, func(s *stream, i int) { r.Unsettled = append(r.Unsettled, s.refs[i]) })
	}
	return r
}
