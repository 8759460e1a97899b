package ledger

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// The test binary re-executes itself as a child process (the os/exec test
// pattern): with childEnv set, TestMain runs writerChild instead of the
// tests. The child records one Record call per index i and prints "C <i>"
// on stdout once that call has returned nil, i.e. committed.
const (
	childEnv  = "LEDGER_TEST_CHILD"  // "writer" selects the child
	dbEnv     = "LEDGER_TEST_DB"     // database path
	layoutEnv = "LEDGER_TEST_LAYOUT" // "perm" or "even", see callSegments
	fromEnv   = "LEDGER_TEST_FROM"   // first call index
	countEnv  = "LEDGER_TEST_COUNT"  // calls per goroutine, 0 = until killed
	gEnv      = "LEDGER_TEST_G"      // goroutines; goroutine g does calls from+g, from+g+G, ...
)

// Slots: a call records fixed-size slots of files. Slot s of a file is
// [s*slotWidth, (s+1)*slotWidth) with slotLines(s) lines and seqs
// s*10 .. s*10+slotLines(s)-1, so any set of slots has exactly one correct
// ledger state (expectRanges).
const (
	slotWidth = 100
	slotMod   = 1 << 14 // slots per file in the "perm" layout
)

// permFiles and their slot permutations i -> (i*a + b) mod slotMod (a odd:
// a bijection) for the "perm" layout: file 0 grows front to back, the
// others are filled in scattered order, so merges happen everywhere.
var permFiles = []struct {
	path string
	a, b int64
}{{"/j/perm-0", 1, 0}, {"/j/perm-1", 5, 3}, {"/j/perm-2", 1229, 77}}

// slotLines is the line count of slot s.
func slotLines(s int64) int { return int(s%3) + 1 }

// slotSeg is slot s of path.
func slotSeg(path string, s int64) Segment {
	n := slotLines(s)
	return Segment{Path: path, Start: s * slotWidth, End: (s + 1) * slotWidth, Lines: n, FirstSeq: s * 10, LastSeq: s*10 + int64(n) - 1}
}

// callSegments is what call i records: "perm" records one slot in each of
// the permFiles; "even" records slot 2i of /j/even (the parent records the
// odd ones).
func callSegments(layout string, i int64) []Segment {
	if layout == "even" {
		return []Segment{slotSeg("/j/even", 2*i)}
	}
	segs := make([]Segment, len(permFiles))
	for k, f := range permFiles {
		segs[k] = slotSeg(f.path, (i*f.a+f.b)%slotMod)
	}
	return segs
}

// expectRanges is the only correct ledger state of a file holding slots.
func expectRanges(slots []int64) []Range {
	slots = slices.Sorted(slices.Values(slots))
	var out []Range
	for _, s := range slots {
		n := len(out)
		if n > 0 && out[n-1].End == s*slotWidth {
			out[n-1].End += slotWidth
			out[n-1].Lines += slotLines(s)
			out[n-1].LastSeq = s*10 + int64(slotLines(s)) - 1
			continue
		}
		out = append(out, slotSeg("", s).rng())
	}
	return out
}

// slotsOf returns the slots a state claims, checking it is exactly the
// state those slots must produce (no torn or half-merged state).
func slotsOf(t testing.TB, fs FileState) []int64 {
	t.Helper()
	var slots []int64
	for _, r := range fs.Ranges {
		require.Zero(t, r.Start%slotWidth, "%s: unaligned range %+v", fs.Path, r)
		require.Zero(t, r.End%slotWidth, "%s: unaligned range %+v", fs.Path, r)
		for s := r.Start / slotWidth; s < r.End/slotWidth; s++ {
			slots = append(slots, s)
		}
	}
	require.Equal(t, expectRanges(slots), fs.Ranges, "%s: ranges do not match their slots", fs.Path)
	return slots
}

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "writer" {
		os.Exit(writerChild())
	}
	os.Exit(m.Run())
}

// writerChild is the child process: G goroutines record their calls and
// report each commit. It returns the exit code.
func writerChild() int {
	env := func(k string) int64 {
		v, err := strconv.ParseInt(os.Getenv(k), 10, 64)
		if err != nil {
			fmt.Fprintln(os.Stderr, "child:", k, err)
			os.Exit(3)
		}
		return v
	}
	from, count, g := env(fromEnv), env(countEnv), env(gEnv)
	layout := os.Getenv(layoutEnv)
	l, err := Open(Config{Path: os.Getenv(dbEnv)})
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 1
	}
	var out sync.Mutex
	var failed sync.Once
	code := 0
	var wg sync.WaitGroup
	for k := range g {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := int64(0); count == 0 || n < count; n++ {
				i := from + k + n*g
				if err := l.Record(context.Background(), callSegments(layout, i)); err != nil {
					failed.Do(func() { code = 2; fmt.Fprintln(os.Stderr, "child:", err) })
					return
				}
				out.Lock()
				fmt.Fprintf(os.Stdout, "C %d\n", i) // unbuffered: one write(2) per line
				out.Unlock()
			}
		}()
	}
	wg.Wait()
	if err := l.Close(); err != nil && code == 0 {
		fmt.Fprintln(os.Stderr, "child:", err)
		code = 1
	}
	return code
}

// child is a running writer child and the commits it has reported.
type child struct {
	cmd     *exec.Cmd
	commits chan int64 // closed when the child's stdout ends
}

// startChild starts a writer child.
func startChild(t *testing.T, db, layout string, from, count, g int64) *child {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"=writer", dbEnv+"="+db, layoutEnv+"="+layout,
		fmt.Sprintf("%s=%d", fromEnv, from), fmt.Sprintf("%s=%d", countEnv, count), fmt.Sprintf("%s=%d", gEnv, g))
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	c := &child{cmd: cmd, commits: make(chan int64, 1024)}
	go c.read(t, stdout)
	return c
}

// read forwards the child's "C <i>" lines to commits.
func (c *child) read(t *testing.T, r io.Reader) {
	defer close(c.commits)
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		var i int64
		if _, err := fmt.Sscanf(sc.Text(), "C %d", &i); err != nil {
			t.Errorf("child said %q", sc.Text())
			continue
		}
		c.commits <- i
	}
}
