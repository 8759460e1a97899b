package lokiproc

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

// startAttempts bounds the retries when a chosen port was taken meanwhile.
const startAttempts = 3

// Loki is a running Loki process.
type Loki struct {
	// URL is the HTTP base address, http://127.0.0.1:<port>.
	URL string
	// GRPCAddr is the gRPC listen address, 127.0.0.1:<port>.
	GRPCAddr string
	// Dir is the data directory.
	Dir string
	// ConfigPath is the generated configuration file inside Dir.
	ConfigPath string
	// LogPath is Dir/loki.log, Loki's stdout and stderr.
	LogPath string
	// Ready is how long Loki took from spawn until /ready answered 200.
	Ready time.Duration

	cmd      *exec.Cmd
	exited   chan struct{} // closed when the process has been reaped
	waitErr  error         // exit status; read only after exited is closed
	ownsDir  bool
	stopOnce sync.Once
	stopErr  error
}

// Start launches Loki with cfg (zero fields take DefaultConfig values) and
// waits until GET /ready answers 200, within cfg.StartTimeout. ctx bounds
// only that wait: once Start returns, Loki runs until Stop. A port taken
// between choosing and binding it is retried with new ports. On failure
// nothing is left running and a temp dir is removed; the error is a
// *ConfigError, *BinaryNotFoundError or *StartError (with Loki's log tail).
func Start(ctx context.Context, cfg Config) (*Loki, error) {
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
		l, err := startOnce(ctx, cfg, dir, owns)
		if err == nil {
			return l, nil
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
		d, err := os.MkdirTemp("", "lokiproc-")
		return d, true, err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", false, err
	}
	return abs, false, os.MkdirAll(abs, 0o755)
}

// startOnce picks ports, writes the config and spawns Loki once.
func startOnce(ctx context.Context, cfg Config, dir string, owns bool) (*Loki, error) {
	setupErr := func(err error) error { return &StartError{Phase: PhaseSetup, Dir: dir, Err: err} }
	ports, err := freePorts(2)
	if err != nil {
		return nil, setupErr(err)
	}
	body, err := lokiConfig{dir: dir, httpPort: ports[0], grpcPort: ports[1], limits: cfg.Limits}.render()
	if err != nil {
		return nil, setupErr(err)
	}
	l := &Loki{
		URL:        fmt.Sprintf("http://127.0.0.1:%d", ports[0]),
		GRPCAddr:   fmt.Sprintf("127.0.0.1:%d", ports[1]),
		Dir:        dir,
		ConfigPath: filepath.Join(dir, "loki.yaml"),
		LogPath:    filepath.Join(dir, "loki.log"),
		ownsDir:    owns,
		exited:     make(chan struct{}),
	}
	if err := os.WriteFile(l.ConfigPath, body, 0o644); err != nil {
		return nil, setupErr(err)
	}
	if err := l.spawn(cfg.Binary); err != nil {
		return nil, err
	}
	if err := l.awaitReady(ctx, cfg.StartTimeout); err != nil {
		l.kill()
		return nil, err
	}
	return l, nil
}

// spawn starts the process with its output appended to LogPath.
func (l *Loki) spawn(binary string) error {
	f, err := os.OpenFile(l.LogPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return &StartError{Phase: PhaseSetup, Dir: l.Dir, Err: err}
	}
	cmd := exec.Command(binary, "-config.file="+l.ConfigPath)
	cmd.Dir = l.Dir
	cmd.Stdout, cmd.Stderr = f, f
	cmd.SysProcAttr = sysProcAttr()
	if err := cmd.Start(); err != nil {
		f.Close()
		return &StartError{Phase: PhaseSpawn, Dir: l.Dir, Err: err}
	}
	l.cmd = cmd
	go func() {
		l.waitErr = cmd.Wait()
		f.Close()
		close(l.exited)
	}()
	return nil
}

// kill ends a process that never became ready.
func (l *Loki) kill() {
	_ = l.cmd.Process.Kill()
	<-l.exited
}

// Stop sends SIGTERM, waits up to 10s, then SIGKILLs, and removes the data
// dir if Start created it. It is safe to call more than once.
func (l *Loki) Stop() error {
	l.stopOnce.Do(func() { l.stopErr = l.stop() })
	return l.stopErr
}

func (l *Loki) stop() error {
	var errs []error
	select {
	case <-l.exited:
	default:
		if err := l.cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
			errs = append(errs, &StopError{Op: "signal", Err: err})
		}
		select {
		case <-l.exited:
		case <-time.After(stopGrace):
			if err := l.cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
				errs = append(errs, &StopError{Op: "kill", Err: err})
			}
			<-l.exited
		}
	}
	if l.ownsDir {
		if err := os.RemoveAll(l.Dir); err != nil {
			errs = append(errs, &StopError{Op: "remove dir", Err: err})
		}
	}
	return errors.Join(errs...)
}

// Exited reports whether the process has ended.
func (l *Loki) Exited() bool {
	select {
	case <-l.exited:
		return true
	default:
		return false
	}
}

// LogTail returns up to the last n bytes of Loki's log, starting at a line
// boundary. It returns "" once Stop removed a temp dir.
func (l *Loki) LogTail(n int) string { return tailFile(l.LogPath, n) }
