package ledger

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/journalship/journalship/journalfile"
)

// testConfig is a Config for a fresh database in a test's temp dir.
func testConfig(t testing.TB) Config {
	t.Helper()
	return Config{Path: filepath.Join(t.TempDir(), "state", "ledger.db"), BusyTimeout: 5 * time.Second}
}

// openTest opens a fresh ledger closed at the end of the test.
func openTest(t testing.TB) *Ledger {
	t.Helper()
	l, err := Open(testConfig(t))
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, l.Close()) })
	return l
}

// seg builds a segment of path; seqs are derived from the offsets so that
// merges can be checked: FirstSeq = Start, LastSeq = End-1.
func seg(path string, start, end int64, lines int) Segment {
	return Segment{Path: path, Start: start, End: end, Lines: lines, FirstSeq: start, LastSeq: end - 1}
}

// rg is the Range seg would produce on its own.
func rg(start, end int64, lines int) Range {
	return Range{Start: start, End: end, Lines: lines, FirstSeq: start, LastSeq: end - 1}
}

// mustFile reads the state of path.
func mustFile(t testing.TB, l *Ledger, path string) FileState {
	t.Helper()
	fs, err := l.File(context.Background(), path)
	require.NoError(t, err)
	return fs
}

// requireKind asserts err is an *Error of kind k with the given retryability.
func requireKind(t testing.TB, err error, k Kind) {
	t.Helper()
	require.Error(t, err)
	var e *Error
	require.ErrorAs(t, err, &e)
	require.ErrorIs(t, err, k)
	require.Equal(t, k, e.Kind)
	require.Equal(t, k.Retryable(), e.Retryable())
	require.Equal(t, k.Retryable(), IsRetryable(err))
}

// journalfileIdentity converts a literal identity.
func journalfileIdentity(s string) journalfile.Identity { return journalfile.Identity(s) }
