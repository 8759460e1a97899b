package promproc

import (
	"context"
	"fmt"
	"strconv"
	"time"
)

// scrapePoll is the interval between LastScrape polls in WaitScrape.
const scrapePoll = 50 * time.Millisecond

// LastScrape returns the timestamp of job's latest scrape (the time of its
// `up` sample), and whether the scrape succeeded (up == 1). ok is false
// when job has not been scraped yet.
func (p *Prometheus) LastScrape(ctx context.Context, job string) (at time.Time, up, ok bool, err error) {
	expr := `timestamp(up{job=` + strconv.Quote(job) + `})`
	ts, err := p.Query(ctx, expr, time.Now())
	if err != nil || len(ts) == 0 {
		return time.Time{}, false, false, err
	}
	ups, err := p.Query(ctx, `up{job=`+strconv.Quote(job)+`}`, time.Now())
	if err != nil || len(ups) == 0 {
		return time.Time{}, false, false, err
	}
	return time.UnixMilli(int64(ts[0].Value*1000 + 0.5)).UTC(), ups[0].Value == 1, true, nil
}

// WaitScrape waits until job has been scraped successfully at or after
// after, and returns that scrape's timestamp: every sample the endpoint
// served then reflects what the process did before after. It fails after
// timeout.
func (p *Prometheus) WaitScrape(ctx context.Context, job string, after time.Time, timeout time.Duration) (time.Time, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var last time.Time
	var lastUp bool
	for {
		at, up, ok, err := p.LastScrape(ctx, job)
		if err == nil && ok && up && !at.Before(after) {
			return at, nil
		}
		if ok {
			last, lastUp = at, up
		}
		select {
		case <-ctx.Done():
			return time.Time{}, fmt.Errorf("promproc: job %q not scraped successfully since %s within %s (last scrape %s, up=%v, last error %v)",
				job, after.Format(time.RFC3339Nano), timeout, last.Format(time.RFC3339Nano), lastUp, err)
		case <-time.After(scrapePoll):
		}
	}
}
