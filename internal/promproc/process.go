package promproc

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"
)

// stopGrace is how long Stop waits after SIGTERM before SIGKILL.
const stopGrace = 10 * time.Second

// startAttempts bounds the retries when the chosen port was taken meanwhile.
const startAttempts = 3

// Prometheus is a running Prometheus server.
type Prometheus struct {
	// URL is the HTTP base address, http://127.0.0.1:<port>.
	URL string
	// Dir is the data directory.
	Dir string
	// ConfigPath is the generated configuration file inside Dir.
	ConfigPath string
	// LogPath is Dir/prometheus.log, the server's stdout and stderr.
	LogPath string
	// ScrapeInterval is every target's scrape interval.
	ScrapeInterval time.Duration
	// Ready is how long the server took from spawn until /-/ready answered 200.
	Ready time.Duration

	cmd      *exec.Cmd
	exited   chan struct{} // closed when the process has been reaped
	waitErr  error         // exit status; read only after exited is closed
	ownsDir  bool
	stopOnce sync.Once
	stopErr  error
}

// Start launches Prometheus with cfg (zero fields take DefaultConfig
// values) and waits until GET /-/ready answers 200, within
// cfg.StartTimeout. ctx bounds only that wait. A port taken between
// choosing and binding it is retried with a new port. On failure nothing
// is left running and a temp dir is removed; the error is a *ConfigError,
// *BinaryNotFoundError or *StartError (with the log's tail).
func Start(ctx context.Context, cfg Config) (*Prometheus, error) {
	cfg = cfg.withDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := checkBinary(cfg.Binary); err != nil {
		return nil, err
	}
	dir, owns, err := dataDir(cfg.Dir)
	if err != nil {
		return nil, &StartError{Phase: PhaseSetup, Dir: cfg.Dir, Err: err}
	}
	var lastErr error
	for range startAttempts {
		p, err := startOnce(ctx, cfg, dir, owns)
		if err == nil {
			return p, nil
		}
		lastErr = err
		var se *StartError
		if !errors.As(err, &se) || se.Phase != PhaseExited || !se.Retryable() {
			break
		}
	}
	if owns {
		_ = os.RemoveAll(dir)
	}
	return nil, lastErr
}

// checkBinary reports a *BinaryNotFoundError unless path is an executable file.
func checkBinary(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return &BinaryNotFoundError{Path: path, Err: err}
	}
	if st.IsDir() || st.Mode().Perm()&0o111 == 0 {
		return &BinaryNotFoundError{Path: path, Err: errors.New("not an executable file")}
	}
	return nil
}

// dataDir creates dir, or a fresh temp dir when dir is empty (owned = true).
func dataDir(dir string) (path string, owned bool, err error) {
	if dir == "" {
		d, err := os.MkdirTemp("", "promproc-")
		return d, true, err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", false, err
	}
	return abs, false, os.MkdirAll(abs, 0o755)
}

// startOnce picks a port, writes the config and spawns Prometheus once.
func startOnce(ctx context.Context, cfg Config, dir string, owns bool) (*Prometheus, error) {
	setupErr := func(err error) error { return &StartError{Phase: PhaseSetup, Dir: dir, Err: err} }
	port, err := freePort()
	if err != nil {
		return nil, setupErr(err)
	}
	body, err := promConfig(cfg.Targets, cfg.ScrapeInterval)
	if err != nil {
		return nil, setupErr(err)
	}
	p := &Prometheus{
		URL:            fmt.Sprintf("http://127.0.0.1:%d", port),
		Dir:            dir,
		ConfigPath:     filepath.Join(dir, "prometheus.yml"),
		LogPath:        filepath.Join(dir, "prometheus.log"),
		ScrapeInterval: cfg.ScrapeInterval,
		ownsDir:        owns,
		exited:         make(chan struct{}),
	}
	if err := os.WriteFile(p.ConfigPath, body, 0o644); err != nil {
		return nil, setupErr(err)
	}
	if err := p.spawn(cfg.Binary, port); err != nil {
		return nil, err
	}
	if err := p.awaitReady(ctx, cfg.StartTimeout); err != nil {
		p.kill()
		return nil, err
	}
	return p, nil
}

// spawn starts the process with its output appended to LogPath.
func (p *Prometheus) spawn(binary string, port int) error {
	f, err := os.OpenFile(p.LogPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return &StartError{Phase: PhaseSetup, Dir: p.Dir, Err: err}
	}
	cmd := exec.Command(binary,
		"--config.file="+p.ConfigPath,
		"--storage.tsdb.path="+filepath.Join(p.Dir, "data"),
		fmt.Sprintf("--web.listen-address=127.0.0.1:%d", port),
		"--log.level=info")
	cmd.Dir = p.Dir
	cmd.Stdout, cmd.Stderr = f, f
	cmd.SysProcAttr = sysProcAttr()
	if err := cmd.Start(); err != nil {
		f.Close()
		return &StartError{Phase: PhaseSpawn, Dir: p.Dir, Err: err}
	}
	p.cmd = cmd
	go func() {
		p.waitErr = cmd.Wait()
		f.Close()
		close(p.exited)
	}()
	return nil
}

// kill ends a process that never became ready.
func (p *Prometheus) kill() {
	_ = p.cmd.Process.Kill()
	<-p.exited
}

// Stop sends SIGTERM, waits up to 10s, then SIGKILLs, and removes the data
// dir if Start created it. It is safe to call more than once.
func (p *Prometheus) Stop() error {
	p.stopOnce.Do(func() { p.stopErr = p.stop() })
	return p.stopErr
}

func (p *Prometheus) stop() error {
	var errs []error
	select {
	case <-p.exited:
	default:
		if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
			errs = append(errs, &StopError{Op: "signal", Err: err})
		}
		select {
		case <-p.exited:
		case <-time.After(stopGrace):
			if err := p.cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
				errs = append(errs, &StopError{Op: "kill", Err: err})
			}
			<-p.exited
		}
	}
	if p.ownsDir {
		if err := os.RemoveAll(p.Dir); err != nil {
			errs = append(errs, &StopError{Op: "remove dir", Err: err})
		}
	}
	return errors.Join(errs...)
}

// Exited reports whether the process has ended.
func (p *Prometheus) Exited() bool {
	select {
	case <-p.exited:
		return true
	default:
		return false
	}
}

// LogTail returns up to the last n bytes of the log, starting at a line
// boundary. It returns "" once Stop removed a temp dir.
func (p *Prometheus) LogTail(n int) string { return tailFile(p.LogPath, n) }
