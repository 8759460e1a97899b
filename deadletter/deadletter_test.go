package deadletter

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWriteAndReadBack(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "dl.jsonl")
	w, err := Open(Config{Path: path, Sync: true})
	require.NoError(t, err)
	at := time.Date(2026, 2, 23, 14, 0, 0, 0, time.UTC)
	require.NoError(t, w.Write([]Entry{
		{Time: at, File: "/d/j/s.jsonl", Offset: 120, HasOffset: true, Line: []byte(`{"a":1}`), Reason: "entry too far behind", Stage: "loki"},
		{Time: at, Line: []byte{0xff, 0x00}, Reason: "missing log key", Stage: "decode", Tag: "sessions"},
	}))
	require.NoError(t, w.Close())

	got := readLines(t, path)
	require.Len(t, got, 2)
	assert.Equal(t, map[string]any{"time": "2026-02-23T14:00:00Z", "file": "/d/j/s.jsonl", "offset": 120.0, "line": `{"a":1}`, "reason": "entry too far behind", "stage": "loki"}, got[0])
	assert.Equal(t, map[string]any{"time": "2026-02-23T14:00:00Z", "line_base64": "/wA=", "reason": "missing log key", "stage": "decode", "tag": "sessions"}, got[1])
}

func TestConcurrentWritesStayWhole(t *testing.T) {
	path := filepath.Join(t.TempDir(), "dl.jsonl")
	w, err := Open(Config{Path: path})
	require.NoError(t, err)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 50 {
				assert.NoError(t, w.Write([]Entry{{Offset: int64(i*100 + j), HasOffset: true, Line: []byte("x"), Reason: "r"}}))
			}
		}()
	}
	wg.Wait()
	require.NoError(t, w.Close())
	assert.Len(t, readLines(t, path), 400)
}

func TestErrors(t *testing.T) {
	assert.Error(t, Config{}.Validate())
	f := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(f, nil, 0o644))
	_, err := Open(Config{Path: filepath.Join(f, "dl.jsonl")})
	var we *WriteError
	require.ErrorAs(t, err, &we)
	assert.True(t, we.Retryable())
	assert.Contains(t, err.Error(), f)
}

func readLines(t *testing.T, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var out []map[string]any
	s := bufio.NewScanner(f)
	for s.Scan() {
		var m map[string]any
		require.NoError(t, json.Unmarshal(s.Bytes(), &m), s.Text())
		out = append(out, m)
	}
	return out
}

func TestTimesJSONCannotHoldAreKept(t *testing.T) {
	path := filepath.Join(t.TempDir(), "dl.jsonl")
	w, err := Open(Config{Path: path})
	require.NoError(t, err)
	require.NoError(t, w.Write([]Entry{{Time: time.Unix(1<<62, 0), Line: []byte("x"), Reason: "r", Stage: "decode"}}))
	require.NoError(t, w.Close())
	got := readLines(t, path)
	require.Len(t, got, 1)
	assert.Equal(t, "unix 4611686018427387904.000000000", got[0]["time_raw"])
	assert.Nil(t, got[0]["time"])
}
