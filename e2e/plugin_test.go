package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/journalship/journalship/chunk"
	"github.com/journalship/journalship/internal/lokiquery"
	"github.com/journalship/journalship/output"
)

// TestLifecycleOneChunk runs register, init, one flush, exit and unregister
// for every chunk layout Fluent Bit writes, with EventTime and integer times,
// and checks the flush reached Loki.
func TestLifecycleOneChunk(t *testing.T) {
	formats := []chunk.Format{chunk.FormatV2, chunk.FormatV1, chunk.FormatV2Direct}
	for _, f := range formats {
		for _, intTime := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/intTime=%t", f, intTime), func(t *testing.T) {
				t.Parallel()
				journal := journalPath(t)
				evs := journalEvents(t, journal, 1, 20, intTime)
				path := writeChunk(t, f, evs...)
				loki := lokiFor(t)
				stdout, err := runHost(t, instanceScript("a", propsFor(t, loki.URL)...)+lines(
					fmt.Sprintf("init a expect %d", output.OK),
					fmt.Sprintf("flush a %s journal.job-1 expect %d", path, output.OK),
					fmt.Sprintf("exit a expect %d", output.OK),
					"unregister",
				))
				require.NoError(t, err)
				assert.Equal(t, lines(
					"register rc=0 name="+output.PluginName,
					fmt.Sprintf("init a rc=%d", output.OK),
					fmt.Sprintf("flush a rc=%d", output.OK),
					fmt.Sprintf("exit a rc=%d", output.OK),
					"unregister",
					"closed failed=0",
				), stdout)
				got := landed(t, loki.URL, `{service_name="agent-sessions"}`, journal, len(evs))
				assert.Len(t, got, len(evs), "OK means every line is in Loki")
				for _, l := range lineTexts(evs) {
					assert.True(t, distinctLines(got)[l], "byte-exact line in Loki: %s", l)
				}
			})
		}
	}
}

// TestTwoInstances runs two instances with their own properties in one
// process, as two [OUTPUT] sections of one Fluent Bit, and exits one while
// the other goes on.
func TestTwoInstances(t *testing.T) {
	journalA, journalB := journalPath(t), journalPath(t)
	chunkA := writeChunk(t, chunk.FormatV2, journalEvents(t, journalA, 2, 10, false)...)
	chunkB := writeChunk(t, chunk.FormatV1, journalEvents(t, journalB, 3, 10, true)...)
	loki := lokiFor(t)
	script := instanceScript("a", append(propsFor(t, loki.URL), "Labels", "service_name=instance-a")...) +
		instanceScript("b", append(propsFor(t, loki.URL), "Labels", "service_name=instance-b")...) + lines(
		"init a", "init b",
		"flush a "+chunkA+" journal.a",
		"flush b "+chunkB+" journal.b",
		"exit b",
		"flush a "+chunkB+" journal.a",
		"exit a",
		"unregister",
	)
	stdout, err := runHost(t, script)
	require.NoError(t, err)
	ok := fmt.Sprintf(" rc=%d", output.OK)
	assert.Equal(t, lines(
		"register rc=0 name="+output.PluginName,
		"init a"+ok, "init b"+ok,
		"flush a"+ok, "flush b"+ok,
		"exit b"+ok,
		"flush a"+ok,
		"exit a"+ok,
		"unregister",
		"closed failed=0",
	), stdout)
	// Each instance ships with its own properties (here its own labels).
	assert.Len(t, landed(t, loki.URL, `{service_name="instance-a"}`, journalA, 10), 10)
	assert.Len(t, distinctLines(landed(t, loki.URL, `{service_name="instance-a"}`, journalB, 10)), 10, "a also flushed chunk B")
	assert.Len(t, landed(t, loki.URL, `{service_name="instance-b"}`, journalB, 10), 10)
	q := &lokiquery.Client{URL: loki.URL}
	none, err := q.QueryRange(context.Background(), `{service_name="instance-b"} | file="`+journalA+`"`, time.Now().Add(-time.Hour), time.Now().Add(time.Minute), 100, "forward")
	require.NoError(t, err)
	assert.Empty(t, none, "b never saw chunk A")
}

// TestConcurrentFlushes flushes from many threads at once into two
// instances, as Fluent Bit does with `Workers` > 0.
func TestConcurrentFlushes(t *testing.T) {
	const perInstance = 12
	journals := []string{journalPath(t), journalPath(t)}
	evs := [][]chunk.Event{journalEvents(t, journals[0], 4, 50, false), journalEvents(t, journals[1], 5, 50, true)}
	chunks := []string{writeChunk(t, chunk.FormatV2, evs[0]...), writeChunk(t, chunk.FormatV1, evs[1]...)}
	var b strings.Builder
	b.WriteString(instanceScript("a", baseProps(t)...) + instanceScript("b", baseProps(t)...))
	b.WriteString(lines("init a", "init b"))
	for i := range perInstance {
		fmt.Fprintf(&b, "flushbg a %s journal.a expect %d\n", chunks[i%2], output.OK)
		fmt.Fprintf(&b, "flushbg b %s journal.b expect %d\n", chunks[(i+1)%2], output.OK)
	}
	b.WriteString(lines("wait", "exit a", "exit b", "unregister"))

	stdout, err := runHost(t, b.String())
	require.NoError(t, err)
	for _, call := range []string{"flushbg a", "flushbg b"} {
		got := rcs(stdout, call)
		require.Len(t, got, perInstance, call)
		for _, rc := range got {
			assert.Equal(t, output.OK, rc, call)
		}
	}
	assert.Equal(t, []int{output.OK}, rcs(stdout, "exit a"))
	assert.Equal(t, []int{output.OK}, rcs(stdout, "exit b"))
	for i, j := range journals {
		got := distinctLines(landed(t, lokiFor(t).URL, `{service_name="agent-sessions"}`, j, 50))
		for _, l := range lineTexts(evs[i]) {
			assert.True(t, got[l], "line in Loki: %s", l)
		}
	}
}

// TestMalformedChunks hands the plugin chunks no Fluent Bit should write.
// It must answer OK with the undecodable bytes in the dead-letter file
// (never Retry: the same bytes would fail forever; never Error: Fluent Bit
// would drop them without a trace), never crash, and keep working.
func TestMalformedChunks(t *testing.T) {
	good := chunk.AppendChunk(nil, chunk.FormatV2, journalEvents(t, journalPath(t), 6, 5, false)...)
	cases := []struct {
		name string
		data []byte
	}{
		{"truncated mid-event", good[:len(good)-7]},
		{"not msgpack", []byte{0xc1, 0xc1, 0xc1}},
		{"not an array", []byte{0xa3, 'l', 'o', 'g'}},
		{"event of three", []byte{0x93, 0x01, 0x80, 0x80}},
		{"time is a string", []byte{0x92, 0xa1, 'x', 0x80}},
		{"text, not msgpack", []byte(`{"type":"SESSION_START"}` + "\n")},
	}
	goodPath := writeBytes(t, good)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			props := baseProps(t)
			stdout, err := runHost(t, instanceScript("a", props...)+lines(
				"init a",
				"flush a "+writeBytes(t, tc.data)+" journal.bad",
				fmt.Sprintf("flush a %s journal.good expect %d", goodPath, output.OK),
				"exit a",
			))
			require.NoError(t, err)
			got := rcs(stdout, "flush a")
			require.Len(t, got, 2)
			assert.Equal(t, output.OK, got[0], "malformed chunk")
			dl, err := os.ReadFile(props[5])
			require.NoError(t, err)
			assert.Contains(t, string(dl), `"stage":"decode"`)
			assert.Contains(t, string(dl), "undecodable Fluent Bit chunk")
			assert.Equal(t, []int{output.OK}, rcs(stdout, "exit a"))
		})
	}
}

// TestEmptyChunk flushes a zero-length chunk: nothing to ship, so OK.
func TestEmptyChunk(t *testing.T) {
	stdout, err := runHost(t, instanceScript("a", baseProps(t)...)+lines(
		"init a",
		fmt.Sprintf("flush a %s journal.empty expect %d", writeBytes(t, nil), output.OK),
	))
	require.NoError(t, err)
	assert.Equal(t, []int{output.OK}, rcs(stdout, "flush a"))
}

// TestLegacyEntryPoints covers what only old Fluent Bit versions call, and
// an instance that exits without a successful init (Fluent Bit calls
// FLBPluginExitCtx with a NULL context for it).
func TestLegacyEntryPoints(t *testing.T) {
	path := writeChunk(t, chunk.FormatV1, journalEvents(t, journalPath(t), 7, 3, true)...)
	res := runHostWith(t, hostRun{Script: instanceScript("a", baseProps(t)...) + lines(
		"instance never",
		"init a",
		fmt.Sprintf("legacyflush %s journal.old expect %d", path, output.Error),
		fmt.Sprintf("exit never expect %d", output.OK),
		fmt.Sprintf("exit a expect %d", output.OK),
		// Fluent Bit calls FLBPluginExit only when FLBPluginExitCtx is
		// missing; calling both must still be harmless.
		fmt.Sprintf("legacyexit expect %d", output.OK),
		"unregister",
	)})
	require.NoError(t, res.Err)
	assert.Equal(t, []int{output.Error}, rcs(res.Stdout, "legacyflush"))
	assert.Equal(t, []int{output.OK}, rcs(res.Stdout, "exit never"))
	assert.Equal(t, []int{output.OK}, rcs(res.Stdout, "legacyexit"))
	assert.Contains(t, res.Stderr, "FLBPluginFlushCtx", "the legacy flush tells users what to upgrade to")
}

// TestHostReportsFailures checks the harness itself: a wrong `expect` makes
// the host exit 1 after finishing the plugin's shutdown, and a missing
// plugin makes it exit 2.
func TestHostReportsFailures(t *testing.T) {
	path := writeChunk(t, chunk.FormatV2, journalEvents(t, journalPath(t), 8, 2, false)...)
	stdout, err := runHost(t, instanceScript("a", baseProps(t)...)+lines(
		"init a",
		fmt.Sprintf("flush a %s journal.x expect %d", path, output.Retry),
		"flush a "+path+" journal.never-run",
	))
	require.Error(t, err)
	assert.Equal(t, 1, exitCode(err))
	assert.Equal(t, lines(
		"register rc=0 name="+output.PluginName,
		fmt.Sprintf("init a rc=%d", output.OK),
		fmt.Sprintf("flush a rc=%d", output.OK),
		fmt.Sprintf("exit a rc=%d", output.OK),
		"unregister",
		"closed failed=1",
	), stdout)

	res := runHostWith(t, hostRun{Script: "", Plugin: "/nonexistent/out_journalship.so"})
	require.Error(t, res.Err)
	assert.Equal(t, 2, exitCode(res.Err))
}

// TestUnderValgrind runs a script that touches every entry point under
// Valgrind: no invalid access in the host or the cgo layer (a plugin that
// kept the chunk buffer past the call reads freed memory: the host poisons
// and frees it), no leak. With JOURNALSHIP_REQUIRE_VALGRIND=1 a missing
// valgrind fails the test; otherwise the script runs without it.
func TestUnderValgrind(t *testing.T) {
	v2 := writeChunk(t, chunk.FormatV2, journalEvents(t, journalPath(t), 9, 30, false)...)
	v1 := writeChunk(t, chunk.FormatV1, journalEvents(t, journalPath(t), 10, 30, true)...)
	bad := writeBytes(t, []byte{0x92, 0xa1, 'x'})
	script := instanceScript("a", baseProps(t)...) + instanceScript("b", baseProps(t)...) + lines(
		"instance never",
		"init a", "init b",
		"flush a "+v2+" journal.a",
		"flush b "+v1+" journal.b",
		"flushbg a "+v1+" journal.a", "flushbg b "+v2+" journal.b", "flushbg a "+v2+" journal.a",
		"wait",
		"flush a "+bad+" journal.bad",
		"flush b "+writeBytes(t, nil)+" journal.empty",
		"legacyflush "+v1+" journal.old",
		"exit never", "exit b", "exit a",
		"unregister",
	)
	run := hostRun{Script: script}
	if vg, err := exec.LookPath("valgrind"); err == nil {
		run.Plugin = pluginForValgrind(t)
		run.Timeout = 5 * time.Minute
		// asyncpreemptoff: see go-runtime.supp. cpu.rdtscp=off: Valgrind
		// 3.19 tells the guest, through its emulated CPUID, that RDTSCP is
		// there even on a CPU without it (many cloud VMs, AMD EPYC among
		// them), and then cannot execute the instruction: the Go runtime's
		// cputicks dies of SIGILL. The Go runtime reads this GODEBUG before
		// its first cputicks and falls back to RDTSC, which every x86-64
		// CPU and Valgrind run, so the test is the same on any machine.
		// GOGC=off: after a GC, the runtime's Valgrind support may describe
		// a reused block while the freed one is still registered, and
		// Memcheck's leak check then aborts ("the impossible happened",
		// "Block ... overlaps with block ..."), depending on when the GC
		// ran; without a GC no block is reused (the script is small).
		run.Env = []string{"GODEBUG=asyncpreemptoff=1,cpu.rdtscp=off", "GOGC=off"}
		run.Wrapper = []string{vg, "--quiet", "--error-exitcode=99", "--leak-check=full",
			"--show-leak-kinds=all", "--errors-for-leak-kinds=all",
			"--suppressions=" + bins.root + "/tools/flbhost/go-runtime.supp"}
	} else if requireValgrind() {
		t.Fatal("JOURNALSHIP_REQUIRE_VALGRIND is set but valgrind is not installed")
	} else {
		t.Log("valgrind not installed: running the script without it")
	}
	res := runHostWith(t, run)
	require.NoError(t, res.Err, "exit code %d", exitCode(res.Err))
	assert.True(t, strings.HasSuffix(res.Stdout, "closed failed=0\n"), res.Stdout)
	assert.Len(t, rcs(res.Stdout, "flushbg a"), 2)
	assert.Len(t, rcs(res.Stdout, "flushbg b"), 1)
}
