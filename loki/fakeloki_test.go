package loki

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/grafana/loki/pkg/push"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"
)

// fakeLoki stands in for Loki where a test needs a fault real Loki cannot
// produce on demand. It decodes every push like Loki does and answers with
// answer (204 when nil).
type fakeLoki struct {
	srv     *httptest.Server
	mu      sync.Mutex
	pushes  []push.PushRequest
	headers []http.Header
	answer  func(n int, w http.ResponseWriter, r *http.Request)
}

func newFakeLoki(t *testing.T, answer func(n int, w http.ResponseWriter, r *http.Request)) *fakeLoki {
	f := &fakeLoki{answer: answer}
	f.srv = httptest.NewServer(f.handler(t))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeLoki) handler(t *testing.T) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST "+PushPath, func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			return // the client went away
		}
		req := decodePush(t, body)
		f.mu.Lock()
		n := len(f.pushes)
		f.pushes = append(f.pushes, req)
		f.headers = append(f.headers, r.Header.Clone())
		f.mu.Unlock()
		if f.answer == nil {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		f.answer(n, w, r)
	})
	mux.HandleFunc("GET "+ReadyPath, func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.headers = append(f.headers, r.Header.Clone())
		f.mu.Unlock()
		if f.answer == nil {
			_, _ = io.WriteString(w, "ready\n")
			return
		}
		f.answer(-1, w, r)
	})
	return mux
}

func (f *fakeLoki) received() ([]push.PushRequest, []http.Header) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]push.PushRequest(nil), f.pushes...), append([]http.Header(nil), f.headers...)
}

// answerWith answers every push with status and body.
func answerWith(status int, body string) func(int, http.ResponseWriter, *http.Request) {
	return func(_ int, w http.ResponseWriter, _ *http.Request) { http.Error(w, body, status) }
}

// newTestClient builds a client for url with its own registry.
func newTestClient(t *testing.T, url string, mutate func(*Config)) (*Client, *prometheus.Registry) {
	t.Helper()
	cfg := DefaultConfig()
	cfg.URL = url
	cfg.MultiStreamRequests = true // most tests here look at multi-stream requests
	if mutate != nil {
		mutate(&cfg)
	}
	reg := prometheus.NewRegistry()
	c, err := New(cfg, reg)
	require.NoError(t, err)
	t.Cleanup(c.Close)
	return c, reg
}
