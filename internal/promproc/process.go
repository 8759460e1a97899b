package promproc

import (
	"context"
	"path/filepath"
	"time"

	"github.com/journalship/journalship/internal/childproc"
)

// Prometheus is a running Prometheus server. The embedded Process has its
// URL, Dir, ConfigPath (Dir/prometheus.yml), LogPath (Dir/prometheus.log)
// and Ready time, and stops it with Stop.
type Prometheus struct {
	*childproc.Process
	// ScrapeInterval is every target's scrape interval.
	ScrapeInterval time.Duration
}

// Start launches Prometheus with cfg (zero fields take DefaultConfig
// values) and waits until GET /-/ready answers 200, within
// cfg.StartTimeout. ctx bounds only that wait. A port taken between
// choosing and binding it is retried with a new port. On failure nothing
// is left running and a temp dir is removed; the error is a *ConfigError,
// *BinaryNotFoundError or *StartError (with the log's tail).
func Start(ctx context.Context, cfg Config) (*Prometheus, error) {
	cfg = cfg.withDefaults()
	p, err := childproc.Start(ctx, cfg.child())
	if err != nil {
		return nil, err
	}
	return &Prometheus{Process: p, ScrapeInterval: cfg.ScrapeInterval}, nil
}

// child describes Prometheus run with c to childproc: one port for the web
// and API, prometheus.yml, GET /-/ready.
func (c Config) child() childproc.Config {
	cc := childproc.DefaultConfig()
	cc.Name, cc.Hint, cc.ConfigName, cc.ReadyPath = "prometheus", hint, "prometheus.yml", "/-/ready"
	cc.Binary, cc.Dir, cc.StartTimeout = c.Binary, c.Dir, c.StartTimeout
	cc.Render, cc.Check = c.render, c.check
	return cc
}

// render returns the configuration and arguments for one start attempt.
func (c Config) render(a childproc.Attempt) ([]byte, []string, error) {
	body, err := promConfig(c.Targets, c.ScrapeInterval)
	return body, []string{
		"--config.file=" + a.ConfigPath,
		"--storage.tsdb.path=" + filepath.Join(a.Dir, "data"),
		"--web.listen-address=" + childproc.Addr(a.Ports[0]),
		"--log.level=info",
	}, err
}
