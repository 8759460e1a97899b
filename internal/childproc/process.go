package childproc

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"time"
)

// Host is the loopback address every server listens on.
const Host = "127.0.0.1"

// Addr returns Host:port.
func Addr(port int) string { return net.JoinHostPort(Host, strconv.Itoa(port)) }

// Process is a running server.
type Process struct {
	// Name is the server's short name, from Config.Name.
	Name string
	// URL is the HTTP base address, http://127.0.0.1:<Ports[0]>.
	URL string
	// Ports are the loopback ports the server was configured with.
	Ports []int
	// Dir is the data directory.
	Dir string
	// ConfigPath is the generated configuration file inside Dir, or "".
	ConfigPath string
	// LogPath is Dir/<Name>.log, the server's stdout and stderr.
	LogPath string
	// Ready is how long the server took from spawn until its ready path
	// answered 200.
	Ready time.Duration

	grace    time.Duration
	cmd      *exec.Cmd
	exited   chan struct{} // closed when the process has been reaped
	waitErr  error         // exit status; read only after exited is closed
	ownsDir  bool
	stopOnce sync.Once
	stopErr  error
}

// Start launches the server cfg describes (zero fields take DefaultConfig
// values) and waits until GET <URL><ReadyPath> answers 200, within
// cfg.StartTimeout. ctx bounds only that wait: once Start returns, the
// server runs until Stop. A port taken between choosing and binding it is
// retried with new ports, up to cfg.Attempts starts. On failure nothing is
// left running and a temp dir is removed; the error is a *ConfigError,
// *BinaryNotFoundError or *StartError (with the log's tail).
func Start(ctx context.Context, cfg Config) (*Process, error) {
	cfg = cfg.withDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := checkBinary(cfg); err != nil {
		return nil, err
	}
	dir, owns, err := dataDir(cfg.Name, cfg.Dir)
	if err != nil {
		return nil, &StartError{Name: cfg.Name, Phase: PhaseSetup, Dir: cfg.Dir, Err: err}
	}
	var lastErr error
	for range cfg.Attempts {
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

// checkBinary reports a *BinaryNotFoundError unless cfg.Binary is an
// executable file.
func checkBinary(cfg Config) error {
	notFound := func(err error) error {
		return &BinaryNotFoundError{Name: cfg.Name, Path: cfg.Binary, Hint: cfg.Hint, Err: err}
	}
	st, err := os.Stat(cfg.Binary)
	if err != nil {
		return notFound(err)
	}
	if st.IsDir() || st.Mode().Perm()&0o111 == 0 {
		return notFound(errors.New("not an executable file"))
	}
	return nil
}

// dataDir creates dir, or a fresh temp dir when dir is empty (owned = true).
func dataDir(name, dir string) (path string, owned bool, err error) {
	if dir == "" {
		d, err := os.MkdirTemp("", name+"-")
		return d, true, err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", false, err
	}
	return abs, false, os.MkdirAll(abs, 0o755)
}

// startOnce picks ports, writes the configuration and spawns the server once.
func startOnce(ctx context.Context, cfg Config, dir string, owns bool) (*Process, error) {
	setupErr := func(err error) error { return &StartError{Name: cfg.Name, Phase: PhaseSetup, Dir: dir, Err: err} }
	ports, err := freePorts(cfg.Ports)
	if err != nil {
		return nil, setupErr(err)
	}
	a := Attempt{Dir: dir, Ports: ports}
	if cfg.ConfigName != "" {
		a.ConfigPath = filepath.Join(dir, cfg.ConfigName)
	}
	var body []byte
	var args []string
	if cfg.Render != nil {
		if body, args, err = cfg.Render(a); err != nil {
			return nil, setupErr(fmt.Errorf("render config: %w", err))
		}
	}
	switch {
	case a.ConfigPath != "":
		if err := os.WriteFile(a.ConfigPath, body, 0o644); err != nil {
			return nil, setupErr(err)
		}
	case body != nil:
		return nil, setupErr(errors.New("Render returned a configuration but ConfigName is empty"))
	}
	p := &Process{
		Name:       cfg.Name,
		URL:        "http://" + Addr(ports[0]),
		Ports:      ports,
		Dir:        dir,
		ConfigPath: a.ConfigPath,
		LogPath:    filepath.Join(dir, cfg.Name+".log"),
		grace:      cfg.StopGrace,
		ownsDir:    owns,
		exited:     make(chan struct{}),
	}
	if err := p.spawn(cfg.Binary, args); err != nil {
		return nil, err
	}
	if err := p.awaitReady(ctx, cfg.ReadyPath, cfg.StartTimeout); err != nil {
		p.kill()
		return nil, err
	}
	return p, nil
}
