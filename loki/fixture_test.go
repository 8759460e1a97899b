package loki

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The fixture batch of testdata/gen400 (which renders Loki's answers about
// it): streams A, B, C and entries with Ref 0..9.
var fixtureBase = time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)

var (
	fixtureA = []Label{{"session", "s-1"}, {"job", "journalship"}}
	fixtureB = []Label{{"host", "h1"}, {"agent.name", "claude"}, {"empty", ""}}
	fixtureC = []Label{{"service_name", "api"}, {"note", `it's; "quoted", {x}`}, {"job", "x"}}
)

type fixtureEntry struct {
	labels []Label
	offset time.Duration
	line   string
	md     []Label
}

var fixtureEntries = []fixtureEntry{
	0: {fixtureA, 100 * time.Millisecond, "a0", nil},
	1: {fixtureA, 200 * time.Millisecond, "a1", nil},
	2: {fixtureA, 300 * time.Millisecond, "a2", nil},
	3: {fixtureA, time.Second + 1, "a3", nil},
	4: {fixtureB, 500 * time.Millisecond, "b0", []Label{{"trace_id", "t1"}}},
	5: {fixtureB, 2500 * time.Millisecond, strings.Repeat("x", 300), nil},
	6: {fixtureB, 3500 * time.Millisecond, "b2", []Label{{"trace_id", "t2"}, {"user", "u"}}},
	7: {fixtureC, 100 * time.Millisecond, "c0", nil},
	8: {fixtureC, 5 * time.Second, "c1", []Label{{"k", "v"}, {"k2", "v2"}}},
	9: {fixtureC, 6 * time.Second, "c2", nil},
}

// fixtureBatch adds the fixture entries, in Ref order, to a new batch.
func fixtureBatch(t testing.TB) *Batch {
	t.Helper()
	b := NewBatch()
	for ref, fe := range fixtureEntries {
		require.NoError(t, b.Add(fe.labels, Entry{Timestamp: fixtureBase.Add(fe.offset), Line: fe.line, Metadata: fe.md, Ref: ref}))
	}
	return b
}
