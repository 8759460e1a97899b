package metrics

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Config says where metrics are served.
type Config struct {
	// Address to listen on; "" disables the endpoint. Default
	// 127.0.0.1:2021 (Fluent Bit's own HTTP server uses 2020).
	Address string
	// Path of the metrics page. Default /metrics.
	Path string
	// MaxModelValues is how many distinct model label values besides the
	// price tables' models the process keeps in its token and cost series;
	// later ones count as "other". 0: DefaultMaxModelValues.
	MaxModelValues int
}

// DefaultConfig returns the loopback default.
func DefaultConfig() Config {
	return Config{Address: "127.0.0.1:2021", Path: "/metrics", MaxModelValues: DefaultMaxModelValues}
}

// Validate checks the address and the model label's limit.
func (c Config) Validate() error {
	if c.MaxModelValues < 0 {
		return fmt.Errorf("metrics: %d model label values: not a count", c.MaxModelValues)
	}
	if c.Address == "" {
		return nil
	}
	if _, _, err := net.SplitHostPort(c.Address); err != nil {
		return fmt.Errorf("metrics: address %q: %w", c.Address, err)
	}
	if c.Path == "" || c.Path[0] != '/' {
		return fmt.Errorf("metrics: path %q must start with /", c.Path)
	}
	return nil
}

// Server serves a Set over HTTP.
type Server struct {
	srv  *http.Server
	addr string
	done chan struct{}
}

// Serve starts serving s on cfg.Address (nil, nil when disabled).
func Serve(cfg Config, s *Set) (*Server, error) {
	return ServeGatherers(cfg, s.Registry)
}

// ServeGatherers serves the union of gatherers on cfg.Address (nil, nil
// when disabled): the retention agent serves its own registry beside the
// shipping one on a single endpoint.
func ServeGatherers(cfg Config, gatherers ...prometheus.Gatherer) (*Server, error) {
	if err := cfg.Validate(); err != nil || cfg.Address == "" {
		return nil, err
	}
	ln, err := net.Listen("tcp", cfg.Address)
	if err != nil {
		return nil, fmt.Errorf("metrics: listen on %s: %w", cfg.Address, err)
	}
	mux := http.NewServeMux()
	mux.Handle(cfg.Path, promhttp.HandlerFor(prometheus.Gatherers(gatherers), promhttp.HandlerOpts{}))
	srv := &Server{srv: &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}, addr: ln.Addr().String(), done: make(chan struct{})}
	go func() {
		defer close(srv.done)
		_ = srv.srv.Serve(ln)
	}()
	return srv, nil
}

// Addr is the address actually listened on.
func (s *Server) Addr() string { return s.addr }

// Close stops the server.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := s.srv.Shutdown(ctx)
	<-s.done
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

var (
	procMu    sync.Mutex
	procSet   *Set
	procSrv   *Server
	procUsers int
)

// Acquire returns the process-wide Set, starting its endpoint on the first
// call (later calls share it whatever address they ask for). Each Acquire
// must be paired with a Release.
func Acquire(cfg Config) (*Set, error) {
	procMu.Lock()
	defer procMu.Unlock()
	if procSet == nil {
		s := newSet(cmp.Or(cfg.MaxModelValues, DefaultMaxModelValues))
		srv, err := Serve(cfg, s)
		if err != nil {
			return nil, err
		}
		procSet, procSrv = s, srv
	}
	procUsers++
	return procSet, nil
}

// Release drops one user of the process-wide Set and stops the endpoint
// when the last one is gone.
func Release() error {
	procMu.Lock()
	defer procMu.Unlock()
	if procUsers == 0 {
		return nil
	}
	procUsers--
	if procUsers > 0 {
		return nil
	}
	var err error
	if procSrv != nil {
		err = procSrv.Close()
	}
	procSet, procSrv = nil, nil
	return err
}
