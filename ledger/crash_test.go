package ledger

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestCrashSafety kills a writer child with SIGKILL in the middle of its
// Record loop, several rounds on the same database, and checks after each
// kill that the database opens and holds exactly the calls S with
//
//	C ⊆ S ⊆ C ∪ F
//
// where C is every call the child reported committed (across rounds) and F
// the calls that may have been in flight at the kill: for each of the
// child's goroutines, the call after its last report. The check is sound
// because a call is reported only after its commit (so C must be there),
// while a call in flight may or may not have committed before the kill (so
// F may or may not be there), and nothing else was ever attempted. Each
// call writes one slot in each of three files; S is read from file 0 and
// files 1 and 2 must hold exactly the slots of the same S (a call is never
// half there), in exactly the merged form those slots give.
func TestCrashSafety(t *testing.T) {
	const (
		rounds = 4
		g      = 4 // goroutines in the child: group commit and concurrent calls in flight
	)
	db := filepath.Join(t.TempDir(), "ledger.db")
	known := map[int64]bool{} // calls established as committed by earlier rounds
	from := int64(0)
	for round := range rounds {
		c := startChild(t, db, "perm", from, 0, g)
		reported := map[int64]bool{}
		target := 40 + rand.IntN(60)
		for len(reported) < target {
			i, ok := <-c.commits
			require.True(t, ok, "round %d: child ended early", round)
			reported[i] = true
		}
		time.Sleep(time.Duration(rand.IntN(3000)) * time.Microsecond)
		require.NoError(t, c.cmd.Process.Signal(syscall.SIGKILL))
		for i := range c.commits { // lines already in the pipe were committed before the kill
			reported[i] = true
		}
		err := c.cmd.Wait()
		require.Error(t, err)
		require.Contains(t, err.Error(), "killed", "round %d", round)

		inFlight := inFlightCalls(from, g, reported)
		present := checkCrashState(t, db, known, reported, inFlight)
		for i := range present {
			known[i] = true
		}
		from = slices.Max(inFlight) + 1
		t.Logf("round %d: %d reported, %d present, in flight %v", round, len(reported), len(present), inFlight)
	}
	l, err := Open(Config{Path: db})
	require.NoError(t, err)
	defer l.Close()
	var res string
	require.NoError(t, l.c.db.QueryRow(`PRAGMA integrity_check`).Scan(&res))
	require.Equal(t, "ok", res)
}

// inFlightCalls is, per goroutine of a child started at from, the call after
// its last reported one (or its first call if none was reported).
func inFlightCalls(from, g int64, reported map[int64]bool) []int64 {
	next := make([]int64, g)
	for k := range g {
		next[k] = from + k
	}
	for i := range reported {
		k := (i - from) % g
		next[k] = max(next[k], i+g)
	}
	return next
}

// checkCrashState opens the crashed database and checks C ⊆ S ⊆ C ∪ F
// (C = known ∪ reported, F = inFlight) and per-call atomicity; it returns S.
func checkCrashState(t *testing.T, db string, known, reported map[int64]bool, inFlight []int64) map[int64]bool {
	t.Helper()
	l, err := Open(Config{Path: db})
	require.NoError(t, err, "the database opens after the kill")
	defer func() { require.NoError(t, l.Close()) }()
	ctx := context.Background()

	inverse := map[int64]int64{} // slot of file 0 -> call; a = 1, b = 0
	present := map[int64]bool{}
	for _, s := range slotsOf(t, mustFile(t, l, permFiles[0].path)) {
		inverse[s] = s
		present[s] = true
	}
	for i := range known {
		require.True(t, present[i], "call %d, committed in an earlier round, is missing", i)
	}
	for i := range reported {
		require.True(t, present[i], "call %d was reported committed but is missing", i)
	}
	for i := range present {
		ok := known[i] || reported[i] || slices.Contains(inFlight, i)
		require.True(t, ok, "call %d is claimed but was never committed nor in flight", i)
	}
	for k, f := range permFiles[1:] {
		var want []int64
		for i := range present {
			want = append(want, (i*f.a+f.b)%slotMod)
		}
		got := slotsOf(t, mustFile(t, l, f.path))
		require.ElementsMatch(t, want, got, "file %d does not hold the same calls as file 0", k+1)
	}
	files, err := l.Files(ctx)
	require.NoError(t, err)
	require.Len(t, files, len(permFiles), fmt.Sprint(files))
	return present
}
