package childproc

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

// readyPoll is the interval between ready probes.
const readyPoll = 100 * time.Millisecond

// LogTailBytes is how much of the log a StartError carries and ForTest
// prints.
const LogTailBytes = 4096

// awaitReady polls GET URL+path until it answers 200, the process exits,
// timeout elapses or ctx ends.
func (p *Process) awaitReady(ctx context.Context, path string, timeout time.Duration) error {
	began := time.Now()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(readyPoll)
	defer tick.Stop()
	client := &http.Client{Timeout: time.Second}
	fail := func(ph StartPhase, err error) error {
		return &StartError{Name: p.Name, Phase: ph, Dir: p.Dir, Err: err, LogTail: tailFile(p.LogPath, LogTailBytes)}
	}
	for {
		if probeReady(ctx, client, p.URL+path) {
			p.Ready = time.Since(began)
			return nil
		}
		select {
		case <-p.exited:
			return fail(PhaseExited, fmt.Errorf("%s exited before ready: %v", p.Name, p.waitErr))
		case <-deadline.C:
			return fail(PhaseTimeout, fmt.Errorf("GET %s%s not 200 after %s", p.URL, path, timeout))
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

// freePorts returns n distinct loopback TCP ports that were free just now.
// All listeners are held until every port is chosen so they differ.
func freePorts(n int) ([]int, error) {
	ports := make([]int, 0, n)
	for range n {
		ln, err := net.Listen("tcp", Addr(0))
		if err != nil {
			return nil, fmt.Errorf("find free port: %w", err)
		}
		defer ln.Close()
		ports = append(ports, ln.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
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
