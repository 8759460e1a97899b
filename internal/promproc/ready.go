package promproc

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"time"
)

// readyPoll is the interval between GET /-/ready probes.
const readyPoll = 100 * time.Millisecond

// logTailBytes is how much of prometheus.log a StartError carries.
const logTailBytes = 4096

// awaitReady polls GET /-/ready until it answers 200, the process exits,
// timeout elapses or ctx ends.
func (p *Prometheus) awaitReady(ctx context.Context, timeout time.Duration) error {
	began := time.Now()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(readyPoll)
	defer tick.Stop()
	client := &http.Client{Timeout: time.Second}
	fail := func(ph StartPhase, err error) error {
		return &StartError{Phase: ph, Dir: p.Dir, Err: err, LogTail: tailFile(p.LogPath, logTailBytes)}
	}
	for {
		if probeReady(ctx, client, p.URL+"/-/ready") {
			p.Ready = time.Since(began)
			return nil
		}
		select {
		case <-p.exited:
			return fail(PhaseExited, fmt.Errorf("prometheus exited before ready: %v", p.waitErr))
		case <-deadline.C:
			return fail(PhaseTimeout, fmt.Errorf("GET %s/-/ready not 200 after %s", p.URL, timeout))
		case <-ctx.Done():
			return fail(PhaseContext, ctx.Err())
		case <-tick.C:
		}
	}
}

// probeReady reports whether GET url answered 200.
func probeReady(ctx context.Context, client *http.Client, url string) bool {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return false
	}
	resp, err := client.Do(req)
	if err != nil {
		return false
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// freePort returns a loopback TCP port that was free just now.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find free port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// tailFile returns up to the last n bytes of path, from a line start.
func tailFile(path string, n int) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return ""
	}
	off := max(st.Size()-int64(n), 0)
	buf := make([]byte, st.Size()-off)
	if _, err := f.ReadAt(buf, off); err != nil && err != io.EOF {
		return ""
	}
	if off > 0 {
		if i := bytes.IndexByte(buf, '\n'); i >= 0 {
			buf = buf[i+1:]
		}
	}
	return string(buf)
}
