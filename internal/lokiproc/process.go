package lokiproc

import (
	"context"
	"testing"

	"github.com/journalship/journalship/internal/childproc"
)

// Loki is a running Loki process. The embedded Process has its URL, Dir,
// ConfigPath (Dir/loki.yaml), LogPath (Dir/loki.log) and Ready time, and
// stops it with Stop.
type Loki struct {
	*childproc.Process
	// GRPCAddr is the gRPC listen address, 127.0.0.1:<port>.
	GRPCAddr string
}

// Start launches Loki with cfg (zero fields take DefaultConfig values) and
// waits until GET /ready answers 200, within cfg.StartTimeout. ctx bounds
// only that wait: once Start returns, Loki runs until Stop. A port taken
// between choosing and binding it is retried with new ports. On failure
// nothing is left running and a temp dir is removed; the error is a
// *ConfigError, *BinaryNotFoundError or *StartError (with Loki's log tail).
func Start(ctx context.Context, cfg Config) (*Loki, error) {
	p, err := childproc.Start(ctx, cfg.withDefaults().child())
	if err != nil {
		return nil, err
	}
	return &Loki{Process: p, GRPCAddr: childproc.Addr(p.Ports[1])}, nil
}

// EnvCI is the environment variable that, when "true", turns a missing Loki
// binary from a skipped test into a failed one.
const EnvCI = childproc.EnvCI

// ForTest starts Loki for t and stops it in t.Cleanup (printing the tail of
// Loki's log when t failed). If the binary is missing it calls t.Fatalf when
// env CI is "true" (a test that needs Loki fails in CI instead of skipping);
// otherwise t.Skipf, telling to run `make loki` first. Any other start
// failure is t.Fatalf with the tail of Loki's log.
func ForTest(t testing.TB, cfg Config) *Loki {
	t.Helper()
	return childproc.ForTest(t, func(ctx context.Context) (*Loki, error) { return Start(ctx, cfg) })
}

// child describes Loki run with c to childproc: an HTTP and a gRPC port,
// loki.yaml, GET /ready.
func (c Config) child() childproc.Config {
	cc := childproc.DefaultConfig()
	cc.Name, cc.Hint, cc.ConfigName = "loki", hint, "loki.yaml"
	cc.Ports, cc.ReadyPath = 2, "/ready"
	cc.Binary, cc.Dir, cc.StartTimeout = c.Binary, c.Dir, c.StartTimeout
	cc.Render, cc.Check = c.render, c.checkLimits
	return cc
}

// render returns the configuration and arguments for one start attempt.
func (c Config) render(a childproc.Attempt) ([]byte, []string, error) {
	body, err := lokiConfig{dir: a.Dir, httpPort: a.Ports[0], grpcPort: a.Ports[1], limits: c.Limits, auth: c.AuthEnabled}.render()
	return body, []string{"-config.file=" + a.ConfigPath}, err
}
