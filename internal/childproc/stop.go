package childproc

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
)

// Stop sends SIGTERM, waits up to Config.StopGrace, then SIGKILLs, reaps
// the process and removes the data dir if Start created it. It is safe to
// call more than once; errors are *StopError values, joined.
func (p *Process) Stop() error {
	p.stopOnce.Do(func() { p.stopErr = p.stop() })
	return p.stopErr
}

func (p *Process) stop() error {
	var errs []error
	fail := func(op string, err error) { errs = append(errs, &StopError{Name: p.Name, Op: op, Err: err}) }
	select {
	case <-p.exited:
	default:
		if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
			fail("signal", err)
		}
		select {
		case <-p.exited:
		case <-time.After(p.grace):
			if err := p.cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
				fail("kill", err)
			}
			<-p.exited
		}
	}
	if p.ownsDir {
		if err := os.RemoveAll(p.Dir); err != nil {
			fail("remove dir", err)
		}
	}
	return errors.Join(errs...)
}

// Exited reports whether the process has ended.
func (p *Process) Exited() bool {
	select {
	case <-p.exited:
		return true
	default:
		return false
	}
}

// LogTail returns up to the last n bytes of the server's log, starting at a
// line boundary. It returns "" once Stop removed a temp dir.
func (p *Process) LogTail(n int) string { return tailFile(p.LogPath, n) }

// String names the server, its URL and its log, e.g. for test logs.
func (p *Process) String() string {
	return fmt.Sprintf("%s at %s (log %s)", p.Name, p.URL, p.LogPath)
}
