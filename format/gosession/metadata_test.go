package gosession

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// specMetadata is the metadata.json of docs/formats/go-session.md, as
// Go's json.MarshalIndent writes it.
const specMetadata = `{
  "session_id": "0d1b",
  "created_at": "2026-02-09T14:02:58.1+01:00",
  "updated_at": "2026-02-09T14:03:41.02+01:00",
  "model": "claude-sonnet-4-5-20250929",
  "cwd": "/home/dev/app",
  "agent_name": "",
  "turn_count": 5,
  "total_cost_usd": 0.0234,
  "exit_reason": "end_turn",
  "parent_session_id": ""
}
`

var mtime = time.Date(2026, 2, 9, 13, 5, 0, 0, time.UTC)

func readMeta(t *testing.T, content []byte) (Metadata, bool) {
	files := map[string][]byte{}
	if content != nil {
		files[MetadataFile] = content
	}
	dir := writeSession(t, "0d1b", files, nil)
	if content != nil {
		require.NoError(t, os.Chtimes(filepath.Join(dir, MetadataFile), mtime, mtime))
	}
	return ReadMetadata(dir, 0)
}

func TestReadMetadata(t *testing.T) {
	m, ok := readMeta(t, []byte(specMetadata))
	require.True(t, ok)
	cet := time.FixedZone("", 3600)
	assert.Equal(t, Metadata{Read: true, SessionID: "0d1b", Model: "claude-sonnet-4-5-20250929", Cwd: "/home/dev/app",
		ExitReason: "end_turn", TurnCount: 5, HasTurnCount: true, TotalCostUSD: 0.0234, HasTotalCost: true,
		CreatedAt: time.Date(2026, 2, 9, 14, 2, 58, 1e8, cet), HasCreatedAt: true,
		UpdatedAt: time.Date(2026, 2, 9, 14, 3, 41, 2e7, cet), HasUpdatedAt: true}, withoutMod(m))
	assert.True(t, m.ModTime.Equal(mtime))
	assert.False(t, m.IDMismatch("0d1b"))
	assert.True(t, m.IDMismatch("other"))

	// The seed's shape: no updated_at; Goat's spec names: id, parent_id.
	m, ok = readMeta(t, []byte(`{"id":"f1","parent_id":"0d1b","created_at":"2026-02-09T14:02:58Z","turn_count":5.0,"total_cost_usd":1,"exit_reason":"max_turns","agent_name":"reviewer"}`))
	require.True(t, ok)
	assert.Equal(t, "f1", m.SessionID)
	assert.Equal(t, "0d1b", m.ParentSessionID)
	assert.False(t, m.HasUpdatedAt)
	assert.Equal(t, int64(5), m.TurnCount, "5.0 is an integer")
	assert.Equal(t, 1.0, m.TotalCostUSD)
	assert.Equal(t, "reviewer", m.AgentName)
	assert.Equal(t, "max_turns", m.ExitReason)

	m, ok = readMeta(t, []byte(`{"session_id":"","id":"b","parent_session_id":"p","parent_id":"q"}`))
	require.True(t, ok)
	assert.Equal(t, "b", m.SessionID, "an empty session_id: id")
	assert.Equal(t, "p", m.ParentSessionID)

	m, ok = readMeta(t, []byte(`{"session_id":"a","session_id":"b","exit_reason":"x","exit_reason":""}`))
	require.True(t, ok)
	assert.Equal(t, "a", m.SessionID, "the first occurrence")
	assert.Equal(t, "x", m.ExitReason)
}

func withoutMod(m Metadata) Metadata {
	m.ModTime = time.Time{}
	return m
}

func TestReadMetadataUnknown(t *testing.T) {
	huge := []byte(`{"exit_reason":"end_turn","pad":"` + strings.Repeat("x", DefaultMaxMetadataBytes) + `"}`)
	for name, content := range map[string][]byte{
		"absent":        nil,
		"empty":         {},
		"whitespace":    []byte(" \n\t\n"),
		"half-written":  []byte(specMetadata[:len(specMetadata)/2]),
		"one byte":      []byte("{"),
		"invalid JSON":  []byte(`{"exit_reason":"end_turn",}`),
		"two documents": []byte(`{"exit_reason":"end_turn"}{"exit_reason":""}`),
		"trailing text": []byte(specMetadata + "x"),
		"an array":      []byte(`[{"exit_reason":"end_turn"}]`),
		"null":          []byte(`null`),
		"a string":      []byte(`"end_turn"`),
		"invalid UTF-8": []byte("{\"cwd\":\"\xff\"}"),
		"too large":     huge,
		"NUL bytes":     make([]byte, 64),
	} {
		t.Run(name, func(t *testing.T) {
			m, ok := readMeta(t, content)
			assert.False(t, ok)
			assert.Equal(t, Metadata{}, m)
		})
	}
	m, ok := ReadMetadata("/nonexistent/session", 0)
	assert.False(t, ok)
	assert.Equal(t, Metadata{}, m)

	dir := writeSession(t, "s", map[string][]byte{MetadataFile: nil}, nil)
	_, ok = ReadMetadata(dir, 0)
	assert.False(t, ok, "a directory where the file should be")

	dir = writeSession(t, "s", nil, nil)
	require.NoError(t, syscall.Mkfifo(filepath.Join(dir, MetadataFile), 0o644))
	_, ok = ReadMetadata(dir, 0)
	assert.False(t, ok, "a FIFO is not opened")

	dir = writeSession(t, "s", map[string][]byte{MetadataFile: []byte(specMetadata)}, nil)
	_, ok = ReadMetadata(dir, int64(len(specMetadata))-1)
	assert.False(t, ok, "the bound is the caller's")
	_, ok = ReadMetadata(dir, int64(len(specMetadata)))
	assert.True(t, ok)

	_, ok = readMeta(t, []byte(specMetadata+"\n\n  \t"))
	assert.True(t, ok, "trailing whitespace is fine")
}

func TestParseMetadataWrongTypes(t *testing.T) {
	m := ParseMetadata([]byte(`{"session_id":5,"model":["m"],"agent_name":null,"cwd":{},"exit_reason":true,
		"turn_count":"5","total_cost_usd":"0.02","created_at":"yesterday","updated_at":1770645791,"parent_session_id":7}`))
	assert.Equal(t, Metadata{Read: true, PerRun: true}, m, "every field unknown on its own (no string session_id: Goat's per-run reading)")
	for _, n := range []string{`-1`, `1.5`, `1e30`, `99999999999999999999`} {
		m = ParseMetadata([]byte(`{"turn_count":` + n + `}`))
		assert.False(t, m.HasTurnCount, n)
	}
	for _, n := range []string{`-0.01`, `1e400`, `-1e400`} {
		m = ParseMetadata([]byte(`{"total_cost_usd":` + n + `}`))
		assert.False(t, m.HasTotalCost, n)
	}
	m = ParseMetadata([]byte(`{"total_cost_usd":0,"turn_count":0}`))
	assert.True(t, m.HasTotalCost && m.HasTurnCount, "zero is known")
	m = ParseMetadata([]byte(`{"created_at":"0001-01-01T00:00:00Z","updated_at":"2026-02-09T14:00:00.000000001-08:00"}`))
	assert.False(t, m.HasCreatedAt, "Go's zero time is no time")
	assert.True(t, m.HasUpdatedAt)
	assert.Equal(t, time.Date(2026, 2, 9, 22, 0, 0, 1, time.UTC), m.UpdatedAt.UTC())
}
