package e2e

// Helpers that drive tools/flbhost: write chunks, run a script, read the
// return codes back. The host's script language is documented at the top of
// tools/flbhost/flbhost.c; its stdout has one line per plugin call:
//
//	register rc=0 name=journalship
//	init a rc=1
//	flush a rc=1
//	flushbg a rc=1      (printed at `wait`, in launch order)
//	exit a rc=1
//	unregister
//	closed failed=0
//
// and it exits 0, 1 (failed `expect` or script error) or 2 (load error).

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/journalship/journalship/chunk"
	"github.com/journalship/journalship/internal/lokiproc"
	"github.com/journalship/journalship/internal/lokiquery"
	"github.com/journalship/journalship/internal/sample/cortex"
)

// hostRun describes one run of the host.
type hostRun struct {
	Script  string
	Plugin  string        // default: the plugin under test
	Wrapper []string      // command to run the host under, e.g. valgrind
	Env     []string      // extra environment variables, KEY=value
	Timeout time.Duration // default: one minute
}

// hostResult is what one run of the host produced.
type hostResult struct {
	Stdout string
	Stderr string
	Err    error // nil when the host exited 0
	// User and Sys are the host's user and system CPU time.
	User, Sys time.Duration
}

// runHost runs the host on script with the plugin under test and returns
// its stdout; err is non-nil when the host did not exit 0 (a failed
// `expect`, a script error or a crash) and then includes its stderr.
func runHost(t testing.TB, script string) (stdout string, err error) {
	t.Helper()
	res := runHostWith(t, hostRun{Script: script})
	return res.Stdout, res.Err
}

// runHostWith runs the host as r says. The plugin's own log lines go to the
// host's stderr, which is logged to t.
func runHostWith(t testing.TB, r hostRun) hostResult {
	t.Helper()
	if r.Plugin == "" {
		r.Plugin = bins.plugin
	}
	if r.Timeout == 0 {
		r.Timeout = time.Minute
	}
	ctx, cancel := context.WithTimeout(context.Background(), r.Timeout)
	defer cancel()
	argv := append(append([]string{}, r.Wrapper...), bins.flbhost, r.Plugin, "-")
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Stdin = strings.NewReader(r.Script)
	cmd.Env = append(os.Environ(), r.Env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var user, sys time.Duration
	if ps := cmd.ProcessState; ps != nil {
		user, sys = ps.UserTime(), ps.SystemTime()
	}
	if stderr.Len() > 0 {
		t.Logf("flbhost stderr:\n%s", stderr.String())
	}
	if err != nil {
		err = fmt.Errorf("flbhost: %w\nstderr:\n%s", err, stderr.String())
	}
	return hostResult{Stdout: stdout.String(), Stderr: stderr.String(), Err: err, User: user, Sys: sys}
}

// writeChunk writes events as one Fluent Bit chunk in format f to a new
// file and returns its path.
func writeChunk(t testing.TB, f chunk.Format, events ...chunk.Event) string {
	t.Helper()
	return writeBytes(t, chunk.AppendChunk(nil, f, events...))
}

// writeBytes writes data to a new file and returns its path (for chunks
// that no encoder would produce).
func writeBytes(t testing.TB, data []byte) string {
	t.Helper()
	f, err := os.CreateTemp(t.TempDir(), "chunk-*.msgpack")
	if err != nil {
		t.Fatal(err)
	}
	if _, err = f.Write(data); err == nil {
		err = f.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
	return f.Name()
}

// journalEvents returns n tail events for realistic journal lines of a
// file at path (written to disk too, so look-behinds can read it), each
// line re-stamped around now so that Loki takes it without the re-stamping
// policy.
func journalEvents(t testing.TB, path string, seed int64, n int, intTime bool) []chunk.Event {
	t.Helper()
	t0 := time.Now().Add(-10 * time.Minute).UTC()
	var offset int64
	var data []byte
	events := make([]chunk.Event, 0, n)
	for i, line := range cortex.Lines(seed, n) {
		line = stampRe.ReplaceAll(line, []byte(`"timestamp":"`+t0.Add(time.Duration(i)*time.Millisecond).Format(time.RFC3339Nano)+`"`))
		ev := chunk.TailEvent(chunk.DefaultConfig(), t0, path, offset, line)
		ev.IntTime = intTime
		events = append(events, ev)
		offset += int64(len(line)) + 1
		data = append(append(data, line...), '\n')
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return events
}

var stampRe = regexp.MustCompile(`"timestamp":"[^"]*"`)

// journalPath is a fresh journal path named as the seed names them.
func journalPath(t testing.TB) string {
	return filepath.Join(t.TempDir(), "01956a3b-7c4d-7e8f-9a1b-2c3d4e5f6789", "session_20261121T100000Z_agent-worker-1.jsonl")
}

// lineTexts returns the journal lines of events.
func lineTexts(evs []chunk.Event) []string {
	var out []string
	for _, ev := range evs {
		for _, f := range ev.Fields {
			if f.Key == chunk.DefaultConfig().LogKey {
				out = append(out, f.Value.(string))
			}
		}
	}
	return out
}

// instanceScript declares an instance and sets its properties, given as
// key, value pairs.
func instanceScript(name string, props ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "instance %s\n", name)
	for i := 0; i+1 < len(props); i += 2 {
		fmt.Fprintf(&b, "set %s %s %s\n", name, props[i], props[i+1])
	}
	return b.String()
}

// baseProps are the properties of an instance shipping to the shared real
// Loki, with its ledger and dead letters in a temp dir.
func baseProps(t testing.TB) []string {
	t.Helper()
	return propsFor(t, lokiFor(t).URL)
}

// propsFor is baseProps with a given Loki URL.
func propsFor(t testing.TB, url string) []string {
	t.Helper()
	dir := t.TempDir()
	return []string{
		"Loki_URL", url,
		"Ledger_Path", filepath.Join(dir, "ledger.db"),
		"Dead_Letter_Path", filepath.Join(dir, "deadletter.jsonl"),
		"Metrics_Address", "off",
	}
}

// shared is the real Loki the tests of this binary ship to, started on
// first use and stopped by TestMain.
var shared struct {
	once sync.Once
	loki *lokiproc.Loki
	err  error
}

// lokiFor returns the shared real Loki. Without the binary the test skips,
// or fails when CI=true.
func lokiFor(t testing.TB) *lokiproc.Loki {
	t.Helper()
	shared.once.Do(func() {
		shared.loki, shared.err = lokiproc.Start(context.Background(), lokiproc.Config{})
	})
	if shared.err != nil {
		var nf *lokiproc.BinaryNotFoundError
		if errors.As(shared.err, &nf) && os.Getenv("CI") != "true" {
			t.Skipf("no Loki binary (run `make loki` first): %v", shared.err)
		}
		t.Fatalf("starting Loki: %v", shared.err)
	}
	return shared.loki
}

func stopSharedLoki() {
	if shared.loki != nil {
		shared.loki.Stop()
	}
}

// landed returns what the Loki at url holds for the journal at path, once
// at least want entries are there.
func landed(t testing.TB, url, selector, path string, want int) []lokiquery.Entry {
	t.Helper()
	q := &lokiquery.Client{URL: url}
	got, err := q.WaitFor(context.Background(), selector+` | file="`+path+`"`, time.Now().Add(-time.Hour), time.Now().Add(time.Minute), want, 30*time.Second)
	if err != nil {
		t.Fatalf("reading back %s: %v", path, err)
	}
	return got
}

// distinctLines returns the set of lines of entries.
func distinctLines(es []lokiquery.Entry) map[string]bool {
	out := map[string]bool{}
	for _, e := range es {
		out[e.Line] = true
	}
	return out
}

var rcLine = regexp.MustCompile(`^(\S+(?: \S+)?) rc=(-?\d+)$`)

// rcs returns the return codes of the stdout lines "<call> rc=<n>" in order,
// call being e.g. "flush a", "flushbg b", "init a" or "legacyflush".
func rcs(stdout, call string) []int {
	var out []int
	for _, line := range strings.Split(stdout, "\n") {
		m := rcLine.FindStringSubmatch(line)
		if m == nil || m[1] != call {
			continue
		}
		n, err := strconv.Atoi(m[2])
		if err != nil {
			panic(err) // the pattern only matches integers
		}
		out = append(out, n)
	}
	return out
}

// exitCode returns the host's exit status from a runHost error, -1 when
// it did not exit normally (killed, timed out) or err is nil.
func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return -1
}

// lines joins script or output lines with a trailing newline.
func lines(ls ...string) string { return strings.Join(ls, "\n") + "\n" }
