package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"

	"github.com/golang/snappy"
	"github.com/grafana/loki/pkg/push"
)

// pushPath is where every Loki client under test sends its pushes.
const pushPath = "/loki/api/v1/push"

// counts is what the stand-in has received.
type counts struct {
	Requests int64 // push requests
	Bytes    int64 // request bodies as sent (compressed when the client compresses)
	Raw      int64 // request bodies decompressed: protobuf or JSON
	Entries  int64 // log entries over every stream
	Errors   int64 // bodies that did not decode
}

// standIn is a Loki that accepts everything at once: it answers 204 to
// every push before looking at it, then decodes the body the way Loki
// does (snappy-compressed protobuf, or JSON, optionally gzipped) and counts
// what it holds. Its own CPU is not Fluent Bit's, so decoding does not
// bias the measurement beyond sharing the machine's cores.
type standIn struct {
	srv *http.Server
	ln  net.Listener

	mu      sync.Mutex
	c       counts
	lastErr error
	changed chan struct{} // closed and replaced whenever counts change
}

// startStandIn listens on a free loopback port and serves until close.
func startStandIn() (*standIn, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &standIn{ln: ln, changed: make(chan struct{})}
	mux := http.NewServeMux()
	mux.HandleFunc("POST "+pushPath, s.push)
	mux.HandleFunc("GET /ready", func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ready\n") })
	s.srv = &http.Server{Handler: mux}
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

// port is the TCP port the stand-in listens on.
func (s *standIn) port() int { return s.ln.Addr().(*net.TCPAddr).Port }

// url is the stand-in's base URL (without the push path).
func (s *standIn) url() string { return fmt.Sprintf("http://127.0.0.1:%d", s.port()) }

func (s *standIn) close() { _ = s.srv.Close() }

// snapshot returns the counts so far, the last decoding error, and a
// channel closed at the next change.
func (s *standIn) snapshot() (counts, error, <-chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.c, s.lastErr, s.changed
}

func (s *standIn) push(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return // the client went away
	}
	w.WriteHeader(http.StatusNoContent)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	st, err := decodePush(r.Header.Get("Content-Type"), r.Header.Get("Content-Encoding"), body)
	s.mu.Lock()
	s.c.Requests++
	s.c.Bytes += int64(len(body))
	s.c.Raw += st.raw
	s.c.Entries += st.entries
	if err != nil {
		s.c.Errors++
		s.lastErr = err
	}
	close(s.changed)
	s.changed = make(chan struct{})
	s.mu.Unlock()
}

// pushStats is what one push body holds.
type pushStats struct {
	raw     int64 // decompressed body bytes
	entries int64
}

// decodePush decodes a push body as Loki's distributor does: JSON when the
// content type says so (Fluent Bit's C loki output), otherwise a
// snappy-compressed push.PushRequest (journalship, grafana-loki's plugin);
// a gzip Content-Encoding is undone first.
func decodePush(contentType, contentEncoding string, body []byte) (pushStats, error) {
	if strings.EqualFold(contentEncoding, "gzip") {
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			return pushStats{}, fmt.Errorf("gzip: %w", err)
		}
		if body, err = io.ReadAll(zr); err != nil {
			return pushStats{}, fmt.Errorf("gzip: %w", err)
		}
	}
	if strings.HasPrefix(contentType, "application/json") {
		var p struct {
			Streams []struct {
				Values []json.RawMessage `json:"values"`
			} `json:"streams"`
		}
		st := pushStats{raw: int64(len(body))}
		if err := json.Unmarshal(body, &p); err != nil {
			return st, fmt.Errorf("json push: %w", err)
		}
		for _, s := range p.Streams {
			st.entries += int64(len(s.Values))
		}
		return st, nil
	}
	raw, err := snappy.Decode(nil, body)
	if err != nil {
		return pushStats{}, fmt.Errorf("snappy: %w", err)
	}
	st := pushStats{raw: int64(len(raw))}
	var req push.PushRequest
	if err := req.Unmarshal(raw); err != nil {
		return st, fmt.Errorf("protobuf push: %w", err)
	}
	for _, s := range req.Streams {
		st.entries += int64(len(s.Entries))
	}
	if len(req.Streams) == 0 {
		return st, errors.New("protobuf push: no streams")
	}
	return st, nil
}
