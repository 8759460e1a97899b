package loki

import (
	"context"
	"encoding/base64"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPushSuccess(t *testing.T) {
	f := newFakeLoki(t, nil)
	c, _ := newTestClient(t, f.srv.URL, nil)
	res, err := c.Push(context.Background(), fixtureBatch(t))
	require.NoError(t, err)
	assert.Equal(t, 1, res.Requests)
	assert.Equal(t, len(fixtureEntries), res.Entries)
	assert.Empty(t, res.Rejected)
	pushes, headers := f.received()
	require.Len(t, pushes, 1)
	assert.Len(t, pushes[0].Streams, 3)
	assert.Equal(t, "application/x-protobuf", headers[0].Get("Content-Type"))
	assert.Equal(t, "journalship/"+Version, headers[0].Get("User-Agent"))
	assert.Empty(t, headers[0].Get("X-Scope-OrgID"))
	assert.Empty(t, headers[0].Get("Authorization"))
	assert.Positive(t, res.Bytes)
	assert.Equal(t, strconv.Itoa(res.Bytes), headers[0].Get("Content-Length"))
}

// TestDefaultSendsOneStreamPerRequest: Loki's ingester reports only the
// last stream's refusals of a request, so by default no request mixes
// streams.
func TestDefaultSendsOneStreamPerRequest(t *testing.T) {
	f := newFakeLoki(t, nil)
	c, _ := newTestClient(t, f.srv.URL, func(c *Config) { c.MultiStreamRequests = false })
	res, err := c.Push(context.Background(), fixtureBatch(t))
	require.NoError(t, err)
	assert.Equal(t, 3, res.Requests)
	assert.Equal(t, len(fixtureEntries), res.Entries)
	pushes, _ := f.received()
	require.Len(t, pushes, 3)
	for _, p := range pushes {
		assert.Len(t, p.Streams, 1)
	}
	assert.False(t, DefaultConfig().MultiStreamRequests)
}

func TestPushEmptyBatchSendsNothing(t *testing.T) {
	f := newFakeLoki(t, nil)
	c, _ := newTestClient(t, f.srv.URL, nil)
	res, err := c.Push(context.Background(), NewBatch())
	require.NoError(t, err)
	assert.Equal(t, Result{}, res)
	pushes, _ := f.received()
	assert.Empty(t, pushes)
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(p, []byte(content), 0o600))
	return p
}

func TestPushHeaders(t *testing.T) {
	basic := func(u, p string) string { return "Basic " + base64.StdEncoding.EncodeToString([]byte(u+":"+p)) }
	tests := []struct {
		name   string
		mutate func(*Config)
		want   map[string]string
	}{
		{"tenant", func(c *Config) { c.TenantID = "team-a" }, map[string]string{"X-Scope-OrgID": "team-a"}},
		{"basic auth", func(c *Config) { c.Username, c.Password = "u", "p:w" }, map[string]string{"Authorization": basic("u", "p:w")}},
		{"password file", func(c *Config) { c.Username, c.PasswordFile = "u", writeFile(t, "pw", "secret\n") }, map[string]string{"Authorization": basic("u", "secret")}},
		{"bearer token", func(c *Config) { c.BearerToken = "tok" }, map[string]string{"Authorization": "Bearer tok"}},
		{"bearer token file", func(c *Config) { c.BearerTokenFile = writeFile(t, "tok", " filetok\n") }, map[string]string{"Authorization": "Bearer filetok"}},
		{"extra headers and user agent", func(c *Config) {
			c.Headers = map[string]string{"X-Team": "obs", "x-lower": "1"}
			c.UserAgent = "custom/1"
		}, map[string]string{"X-Team": "obs", "X-Lower": "1", "User-Agent": "custom/1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeLoki(t, nil)
			c, _ := newTestClient(t, f.srv.URL, tt.mutate)
			_, err := c.Push(context.Background(), fixtureBatch(t))
			require.NoError(t, err)
			require.NoError(t, c.Ready(context.Background()))
			_, headers := f.received()
			require.Len(t, headers, 2)
			for _, h := range headers { // push and ready
				for k, v := range tt.want {
					assert.Equal(t, v, h.Get(k), k)
				}
			}
		})
	}
}

func TestBearerTokenFileRotation(t *testing.T) {
	f := newFakeLoki(t, func(_ int, w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer new-token" {
			http.Error(w, "invalid token", http.StatusUnauthorized)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	path := writeFile(t, "token", "old-token\n")
	c, _ := newTestClient(t, f.srv.URL, func(c *Config) { c.BearerTokenFile = path })

	_, err := c.Push(context.Background(), fixtureBatch(t))
	retryable, cause := Classify(err)
	require.True(t, retryable)
	require.Equal(t, CauseAuth, cause)

	// Rotated to a token of the same size with the old modification time:
	// only the 401 makes the client read the file again, and it resends at
	// once.
	fi, err := os.Stat(path)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, []byte("new-token\n"), 0o600))
	require.NoError(t, os.Chtimes(path, fi.ModTime(), fi.ModTime()))
	res, err := c.Push(context.Background(), fixtureBatch(t))
	require.NoError(t, err)
	assert.Equal(t, 1, res.Requests)

	_, headers := f.received()
	var auths []string
	for _, h := range headers {
		auths = append(auths, h.Get("Authorization"))
	}
	assert.Equal(t, []string{"Bearer old-token", "Bearer old-token", "Bearer new-token"}, auths)
}

func TestBearerTokenFileChangeIsPickedUpBeforeSending(t *testing.T) {
	f := newFakeLoki(t, nil)
	path := writeFile(t, "token", "first")
	c, _ := newTestClient(t, f.srv.URL, func(c *Config) { c.BearerTokenFile = path })
	_, err := c.Push(context.Background(), fixtureBatch(t))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, []byte("second-token"), 0o600))
	_, err = c.Push(context.Background(), fixtureBatch(t))
	require.NoError(t, err)
	require.NoError(t, os.Remove(path))
	_, err = c.Push(context.Background(), fixtureBatch(t))
	retryable, cause := Classify(err)
	assert.True(t, retryable)
	assert.Equal(t, CauseAuth, cause)
	_, headers := f.received()
	require.Len(t, headers, 2)
	assert.Equal(t, "Bearer first", headers[0].Get("Authorization"))
	assert.Equal(t, "Bearer second-token", headers[1].Get("Authorization"))
}

func TestReady(t *testing.T) {
	tests := []struct {
		name   string
		answer func(int, http.ResponseWriter, *http.Request)
		cause  string
	}{
		{"ready", nil, ""},
		{"not ready", answerWith(503, "Ingester not ready: waiting for 15s after being ready"), CauseServerError},
		{"unauthorized", answerWith(401, "no"), CauseAuth},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeLoki(t, tt.answer)
			c, _ := newTestClient(t, f.srv.URL, nil)
			err := c.Ready(context.Background())
			_, cause := Classify(err)
			assert.Equal(t, tt.cause, cause, "%v", err)
		})
	}
}

func TestMetrics(t *testing.T) {
	f := newFakeLoki(t, nil)
	c, reg := newTestClient(t, f.srv.URL, nil)
	res, err := c.Push(context.Background(), fixtureBatch(t))
	require.NoError(t, err)
	assert.Equal(t, 1.0, testutil.ToFloat64(c.m.requests.WithLabelValues(OutcomeSuccess)))
	assert.Equal(t, float64(res.Bytes), testutil.ToFloat64(c.m.bytes))
	assert.Equal(t, float64(len(fixtureEntries)), testutil.ToFloat64(c.m.entries))
	n, err := testutil.GatherAndCount(reg, "journalship_loki_request_duration_seconds", "journalship_loki_sent_bytes_total", "journalship_loki_requests_total")
	require.NoError(t, err)
	assert.Equal(t, 3, n)
	problems, err := testutil.GatherAndLint(reg)
	require.NoError(t, err)
	assert.Empty(t, problems)

	// A second client on the same registry shares the collectors.
	cfg := DefaultConfig()
	cfg.URL = f.srv.URL
	cfg.MultiStreamRequests = true
	c2, err := New(cfg, reg)
	require.NoError(t, err)
	_, err = c2.Push(context.Background(), fixtureBatch(t))
	require.NoError(t, err)
	assert.Equal(t, 2.0, testutil.ToFloat64(c.m.requests.WithLabelValues(OutcomeSuccess)))
}

func TestNewWithoutRegistry(t *testing.T) {
	f := newFakeLoki(t, nil)
	c, err := New(Config{URL: f.srv.URL, Timeout: time.Second, MaxRequestBytes: 4096}, nil)
	require.NoError(t, err)
	_, err = c.Push(context.Background(), fixtureBatch(t))
	require.NoError(t, err)
	_, headers := f.received()
	assert.True(t, strings.HasPrefix(headers[0].Get("User-Agent"), "journalship/"))
}
