package e2e

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang/snappy"
	"github.com/grafana/loki/pkg/push"
	"github.com/journalship/journalship/internal/lokiquery"
	"github.com/journalship/journalship/internal/verify"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fault is what the proxy does with one push request.
type fault int

const (
	pass        fault = iota
	refuse            // answer 503 without forwarding: Loki never saw it
	hang              // answer nothing until the client gives up: Loki never saw it
	loseAnswer        // forward, then answer 500: Loki stored it, the client cannot know
	killShipper       // forward, then SIGKILL the shipper before it hears Loki's answer
)

// faultProxy stands in front of the real Loki and injects the faults
// real Loki cannot produce on demand: 5xx, timeouts, lost answers, a
// shipper killed between Loki's answer and its ledger commit. It counts
// the entries of every request Loki stored but the client was not told
// of: the duplicates a retry may make, and no others.
type faultProxy struct {
	srv      *httptest.Server
	mu       sync.Mutex
	n        int
	plan     func(n int) fault
	victim   *os.Process // killed by killShipper
	unheard  int         // entries Loki stored whose answer was lost
	faults   map[fault]int
	released chan struct{}
}

func newFaultProxy(t *testing.T, lokiURL string, plan func(n int) fault) *faultProxy {
	target, err := url.Parse(lokiURL)
	require.NoError(t, err)
	p := &faultProxy{plan: plan, faults: map[fault]int{}, released: make(chan struct{})}
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if r.URL.Path != "/loki/api/v1/push" {
			forward(w, r, target, body)
			return
		}
		p.mu.Lock()
		f := p.plan(p.n)
		p.n++
		p.faults[f]++
		p.mu.Unlock()
		switch f {
		case refuse:
			http.Error(w, "injected: upstream unavailable", http.StatusServiceUnavailable)
		case hang:
			select {
			case <-r.Context().Done():
			case <-p.released:
			}
		case loseAnswer, killShipper:
			status := forward(httptest.NewRecorder(), r, target, body)
			p.mu.Lock()
			if status/100 == 2 {
				p.unheard += entriesOf(t, body)
			}
			if f == killShipper && p.victim != nil {
				_ = p.victim.Kill()
			}
			p.mu.Unlock()
			http.Error(w, "injected: answer lost", http.StatusInternalServerError)
		default:
			forward(w, r, target, body)
		}
	}))
	t.Cleanup(func() { close(p.released); p.srv.Close() })
	return p
}

// forward sends the request on to Loki and copies its answer to w.
func forward(w http.ResponseWriter, r *http.Request, target *url.URL, body []byte) int {
	u := *target
	u.Path, u.RawQuery = r.URL.Path, r.URL.RawQuery
	req, err := http.NewRequest(r.Method, u.String(), bytes.NewReader(body))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return http.StatusBadGateway
	}
	req.Header = r.Header.Clone()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return http.StatusBadGateway
	}
	defer resp.Body.Close()
	for k, vs := range resp.Header {
		w.Header()[k] = vs
	}
	w.WriteHeader(resp.StatusCode)
	_, _ = io.Copy(w, resp.Body)
	return resp.StatusCode
}

// entriesOf counts the entries of a snappy-compressed push request.
func entriesOf(t *testing.T, body []byte) int {
	raw, err := snappy.Decode(nil, body)
	require.NoError(t, err)
	var pr push.PushRequest
	require.NoError(t, pr.Unmarshal(raw))
	n := 0
	for _, s := range pr.Streams {
		n += len(s.Entries)
	}
	return n
}

// shipArgs are `journalship ship`'s arguments for the mixed corpus.
func shipArgs(lokiURL, work, roots string, dirs []string) []string {
	return append([]string{"ship", "--loki-url", lokiURL,
		"--ledger-path", filepath.Join(work, "ledger.db"), "--dead-letter-path", filepath.Join(work, "deadletter.jsonl"),
		"--format-roots", roots, "--node-name", "node-stock", "--max-request-bytes", "64K", "--max-retry", "10m",
		"--timeout", "2s", "--metrics-address", "off", "--quiet"}, dirs...)
}

// rootDirs lists the directories of a --format-roots value.
func rootDirs(roots string) []string {
	var dirs []string
	for _, r := range strings.Split(roots, ",") {
		_, dir, _ := strings.Cut(r, "=")
		dirs = append(dirs, dir)
	}
	return dirs
}

// TestStockLokiUnderFaults: the mixed corpus shipped into a Loki with
// stock limits through a proxy that refuses requests (503), lets them
// time out, loses Loki's answer to requests it stored, and SIGKILLs the
// shipper between Loki's answer and its ledger commit; the shipper is run
// again until it finishes. Every complete line is in Loki, with tokens as
// the truth has them when nothing was stored unheard, and the only
// duplicates are the entries of requests whose answer was lost: at most
// one request's worth per such fault, never a retry's or a restart's.
func TestStockLokiUnderFaults(t *testing.T) {
	n := newStockNode(t)
	want := n.corpus.Lines()

	// Requests 3, 13, 23, ... are refused, 5 and 40 time out, 11 is
	// stored with its answer lost, 20 kills the shipper.
	proxy := newFaultProxy(t, n.loki.URL, func(k int) fault {
		switch {
		case k == 20:
			return killShipper
		case k == 11:
			return loseAnswer
		case k == 5 || k == 40:
			return hang
		case k%10 == 3:
			return refuse
		}
		return pass
	})
	cli := journalshipCLI(t)
	runs := 0
	for ; runs < 5; runs++ {
		args := append(shipArgs(proxy.srv.URL, n.work, n.roots, nil), "--batch-lines", strconv.Itoa(faultBatch))
		cmd := exec.Command(cli, append(args, rootDirs(n.roots)...)...)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		require.NoError(t, cmd.Start())
		proxy.mu.Lock()
		proxy.victim = cmd.Process
		proxy.mu.Unlock()
		err := cmd.Wait()
		if err == nil {
			break
		}
		t.Logf("ship run %d ended: %v (%s)", runs+1, err, strings.TrimSpace(out.String()))
	}
	require.Less(t, runs, 5, "the shipper finished")
	require.Positive(t, proxy.faults[killShipper], "the shipper was killed once")
	require.Positive(t, proxy.faults[refuse])
	require.Positive(t, proxy.faults[hang])
	require.Positive(t, proxy.faults[loseAnswer])

	entries := countEntries(t, n.q, verify.Selector, 7*time.Hour)
	distinct := distinctPlaces(t, n.q)
	assert.Equal(t, want, distinct, "every complete line is in Loki")
	assert.GreaterOrEqual(t, entries, want)
	// Duplicates only from the requests whose answer was lost, and from
	// the batch in flight when the shipper was killed (the ledger records
	// a batch once Loki answered all its requests).
	bound := proxy.unheard + faultBatch
	assert.LessOrEqual(t, entries-want, bound,
		"duplicates beyond the lost answers (%d entries) and one batch (%d lines)", proxy.unheard, faultBatch)
	t.Logf("%d lines, %d entries in Loki, %d entries stored unheard, faults %v", want, entries, proxy.unheard, proxy.faults)
	// Each line as the truth has it (annotations, state, model); tokens by
	// model as the truth's when Loki kept no duplicate (the lines sent
	// again had the same times, and Loki's head block drops an entry
	// identical in time and line to one it holds).
	verify.LandedAtLeastOnce(t, n.loki.URL, n.corpus, n.node, "node-stock")
	if entries == want {
		verify.Tokens(t, n.q, n.corpus, time.Now().Add(time.Minute))
	}
}

// faultBatch is the shipper's batch under faults: the most a SIGKILL
// between Loki's answers and the ledger's commit can duplicate.
const faultBatch = 100

// distinctPlaces counts the distinct lines in Loki by file and offset.
func distinctPlaces(t *testing.T, q *lokiquery.Client) int {
	t.Helper()
	got, err := q.QueryRange(t.Context(), verify.Selector, time.Now().Add(-7*time.Hour), time.Now().Add(time.Minute), lokiquery.DefaultPageLimit, "forward")
	require.NoError(t, err)
	places := map[string]bool{}
	for _, e := range got {
		places[e.Metadata["file"]+"@"+e.Metadata["byte_offset"]] = true
	}
	return len(places)
}
