package loki

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func readAnswer(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "answers", name))
	require.NoError(t, err)
	return string(b)
}

// mapFixture plans the fixture batch as one request and maps answer to it.
func mapFixture(t *testing.T, status int, answer string) ([]Rejection, error) {
	t.Helper()
	b := fixtureBatch(t)
	reqs := b.plan(DefaultMaxRequestBytes, true)
	require.Len(t, reqs, 1)
	m, err := mapRejections(b, reqs[0], status, answer, true, DefaultMaxBehind)
	return m.rejected, err
}

func refsOf(rs []Rejection) []int {
	out := []int{}
	for _, r := range rs {
		out = append(out, r.Ref)
	}
	return out
}

func TestMapRejections(t *testing.T) {
	tests := []struct {
		file   string
		refs   []int
		reason map[int]string // substring expected in the reason of a ref
		whole  []int          // refs whose reason must be the whole answer
		// refused: the answer is not about lines (a refused stream) or not
		// understood: the request is retried as a whole, nothing rejected.
		refused bool
	}{
		{file: "too_old_single.txt", refs: []int{3}, reason: map[int]string{3: "has timestamp too old: 2026-03-01T10:00:01Z"}},
		// Loki refused 2 of the 3 entries of second 10:00:00 in stream A:
		// all 3 are reported (a duplicate in the dead letters, no loss).
		{file: "too_old_grouped.txt", refs: []int{0, 1, 2, 9}, reason: map[int]string{0: "too old", 2: "too old", 9: "too new"}},
		{file: "mixed.txt", refs: []int{5, 6, 8}, reason: map[int]string{
			5: "max entry size '256' bytes exceeded", 6: "structured metadata too large: '15' bytes", 8: "too many structured metadata labels: '2'",
		}},
		// A tenant refusing structured metadata refuses every line sent:
		// retried until it is fixed, never dead-lettered.
		{file: "disallowed.txt", refused: true},
		{file: "stream_level.txt", refused: true},
		{file: "label_names.txt", refused: true},
		{file: "ingester_too_far_behind.txt", refs: []int{0, 1}, reason: map[int]string{0: "entry too far behind", 1: "entry too far behind"}},
		// A shard's answer: the entry it names is refused, the others
		// are neither refused nor taken as stored (sent again).
		{file: "ingester_truncated.txt", refs: []int{7}, reason: map[int]string{7: "entry out of order"}},
		{file: "unparseable.txt", refused: true},
		{file: "unknown_stream.txt", refused: true},
		{file: "count_mismatch.txt", refused: true},
		{file: "missing_labels.txt", refused: true},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			answer := readAnswer(t, tt.file)
			rs, err := mapFixture(t, 400, answer)
			if tt.refused {
				var re *RetryableError
				require.ErrorAs(t, err, &re)
				assert.Equal(t, CauseRequestRefused, re.Cause)
				assert.Empty(t, rs, "no line is dead-lettered for a refused request")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.refs, refsOf(rs))
			byRef := map[int]string{}
			for _, r := range rs {
				byRef[r.Ref] = r.Reason
			}
			for ref, want := range tt.reason {
				assert.Contains(t, byRef[ref], want, "ref %d", ref)
			}
			for _, ref := range tt.whole {
				assert.Equal(t, strings.TrimSpace(answer), byRef[ref], "ref %d", ref)
			}
		})
	}
}

func TestMapRejectionsRetryable(t *testing.T) {
	tests := []struct {
		file  string
		cause string
	}{
		{"ingester_rate_limited.txt", CauseRateLimited},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			rs, err := mapFixture(t, 400, readAnswer(t, tt.file))
			assert.Nil(t, rs)
			var re *RetryableError
			require.True(t, errors.As(err, &re))
			assert.Equal(t, tt.cause, re.Cause)
			assert.Equal(t, 400, re.Status)
		})
	}
}

// An answer cut at maxAnswerBytes may have lost whole messages: every entry
// not singled out is rejected with the answer.
func TestMapRejectionsIncompleteAnswer(t *testing.T) {
	answer := readAnswer(t, "mixed.txt")
	for cut := len(answer); cut > 0; cut -= 7 {
		b := fixtureBatch(t)
		reqs := b.plan(DefaultMaxRequestBytes, true)
		m, err := mapRejections(b, reqs[0], 400, answer[:cut], false, DefaultMaxBehind)
		require.NoError(t, err)
		rs := m.rejected
		assert.Equal(t, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, refsOf(rs), "cut at %d", cut)
	}
}

func TestParseIngesterLine(t *testing.T) {
	tests := []struct {
		line string
		ok   bool
		nano int64
	}{
		{"entry with timestamp 2026-03-01 10:00:00.000000001 +0000 UTC ignored, reason: 'entry out of order',", true, fixtureBase.UnixNano() + 1},
		{"entry with timestamp 2026-03-01 12:00:00 +0200 CEST ignored, reason: 'x',", true, fixtureBase.UnixNano()},
		{"entry with timestamp 2026-03-01 10:00:00 +0000 UTC m=+0.5 ignored, reason: 'x',", true, fixtureBase.UnixNano()},
		{"entry with timestamp yesterday ignored, reason: 'x',", false, 0},
		{"entry with timestamp 2026-03-01 10:00:00 +0000 UTC ignored, reason: 'x'", false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			il, ok := parseIngesterLine(tt.line)
			require.Equal(t, tt.ok, ok)
			if ok {
				assert.Equal(t, tt.nano, il.ts.UnixNano())
			}
		})
	}
}

// TestMetadataLimitRefusingEveryLineIsTheTenants: a metadata size limit
// that refuses every entry of a request is the tenant's configuration,
// not a line's: the request is retried as a whole; one that refuses some
// entries refuses those.
func TestMetadataLimitRefusingEveryLineIsTheTenants(t *testing.T) {
	ls := []Label{{"service_name", "agent-sessions"}}
	at := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	md := []Label{{"session_id", "0123456789"}}
	size := metadataSize(md)
	answer := func(n int) string {
		return fmt.Sprintf("%d errors like: stream '{service_name=\"agent-sessions\"}' has structured metadata too large: '%d' bytes, limit: '10' bytes. Please see `limits_config.max_structured_metadata_size` or contact your Loki administrator to increase it.", n, size)
	}
	b := NewBatch()
	for i := range 3 {
		require.NoError(t, b.Add(ls, Entry{Timestamp: at.Add(time.Duration(i)), Line: "x", Metadata: md, Ref: i}))
	}
	reqs := b.plan(DefaultMaxRequestBytes, true)
	require.Len(t, reqs, 1)
	_, err := mapRejections(b, reqs[0], 400, answer(3), true, DefaultMaxBehind)
	var re *RetryableError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, CauseRequestRefused, re.Cause)

	require.NoError(t, b.Add(ls, Entry{Timestamp: at.Add(time.Second), Line: "y", Metadata: []Label{{"a", "b"}}, Ref: 3}))
	reqs = b.plan(DefaultMaxRequestBytes, true)
	require.Len(t, reqs, 1)
	m, err := mapRejections(b, reqs[0], 400, answer(3), true, DefaultMaxBehind)
	require.NoError(t, err)
	assert.Equal(t, []int{0, 1, 2}, refsOf(m.rejected), "the entry within the limit was stored: the others are the lines'")
}

// TestMetadataLimitsCountEachEntryOnce: an entry over two limits is named
// by both messages; the request is the tenant's only when every entry is
// refused, so the entry within both limits, stored, makes the others the
// lines' own refusals.
func TestMetadataLimitsCountEachEntryOnce(t *testing.T) {
	ls := []Label{{"service_name", "agent-sessions"}}
	at := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	big := []Label{{"a", strings.Repeat("x", 40)}, {"b", "1"}, {"c", "2"}}
	many := []Label{{"a", "1"}, {"b", "2"}, {"c", "3"}}
	b := NewBatch()
	for i, md := range [][]Label{big, many, {{"a", "1"}}} {
		require.NoError(t, b.Add(ls, Entry{Timestamp: at.Add(time.Duration(i)), Line: "x", Metadata: md, Ref: i}))
	}
	answer := fmt.Sprintf("1 errors like: stream '{service_name=\"agent-sessions\"}' has structured metadata too large: '%d' bytes, limit: '20' bytes. Please see `limits_config.max_structured_metadata_size`; "+
		"2 errors like: stream '{service_name=\"agent-sessions\"}' has too many structured metadata labels: '3', limit: '2'. Please see `limits_config.max_structured_metadata_entries_count`", metadataSize(big))
	reqs := b.plan(DefaultMaxRequestBytes, true)
	require.Len(t, reqs, 1)
	m, err := mapRejections(b, reqs[0], 400, answer, true, DefaultMaxBehind)
	require.NoError(t, err)
	assert.Equal(t, []int{0, 1}, refsOf(m.rejected))
}

// TestMetadataDisallowedHoldsTheEntriesWithMetadata: a tenant that takes
// no structured metadata stores the entries without any and refuses the
// others, which are held for the retry, never dead-lettered; the stored
// ones are settled.
func TestMetadataDisallowedHoldsTheEntriesWithMetadata(t *testing.T) {
	ls := []Label{{"service_name", "agent-sessions"}}
	at := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	b := NewBatch()
	for i := range 3 {
		var md []Label
		if i != 1 {
			md = []Label{{"seq", "1"}}
		}
		require.NoError(t, b.Add(ls, Entry{Timestamp: at.Add(time.Duration(i)), Line: "x", Metadata: md, Ref: i}))
	}
	// An entry too long as well, without metadata: refused for itself.
	require.NoError(t, b.Add(ls, Entry{Timestamp: at.Add(time.Second), Line: strings.Repeat("y", 300), Ref: 3}))
	answer := "2 errors like: stream '{service_name=\"agent-sessions\"}' includes structured metadata, but this feature is disallowed. Please see `limits_config.allow_structured_metadata` or contact your Loki administrator to enable it; " +
		"1 errors like: max entry size '256' bytes exceeded for stream '{service_name=\"agent-sessions\"}' while adding an entry with length '300' bytes"
	reqs := b.plan(DefaultMaxRequestBytes, true)
	require.Len(t, reqs, 1)
	m, err := mapRejections(b, reqs[0], 400, answer, true, DefaultMaxBehind)
	var re *RetryableError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, CauseRequestRefused, re.Cause)
	assert.Empty(t, m.rejected)
	assert.Equal(t, []int{0, 2, 3}, m.held, "every refused entry waits for the retry, none is taken as stored")

	f := newFakeLoki(t, func(_ int, w http.ResponseWriter, _ *http.Request) { http.Error(w, answer, http.StatusBadRequest) })
	c, _ := newTestClient(t, f.srv.URL, nil)
	res, err := c.Push(context.Background(), b)
	require.ErrorAs(t, err, &re)
	assert.Equal(t, 1, res.Entries, "the entry without metadata is stored")
	assert.ElementsMatch(t, []int{0, 2, 3}, res.Unsettled)
	assert.Empty(t, res.Rejected)
}
