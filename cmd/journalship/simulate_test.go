package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	yamlv3 "go.yaml.in/yaml/v3"
	appsv1 "k8s.io/api/apps/v1"
	"sigs.k8s.io/yaml"

	"github.com/journalship/journalship/audit"
	"github.com/journalship/journalship/format/registry"
	"github.com/journalship/journalship/internal/sample"
	cortexsample "github.com/journalship/journalship/internal/sample/cortex"
	"github.com/journalship/journalship/output"
	"github.com/journalship/journalship/retention"
)

// fakeClock advances by step at every reading.
type fakeClock struct {
	mu   sync.Mutex
	t    time.Time
	step time.Duration
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.t
	c.t = c.t.Add(c.step)
	return t
}

var simStart = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

// simulateOnce runs one round of Cortex Plane journals into a new
// directory with a fake clock.
func simulateOnce(t *testing.T, o simulateOpts) (*simulator, string) {
	t.Helper()
	o.dir = filepath.Join(t.TempDir(), "sessions")
	o.roots = map[string]string{cortexsample.FormatName: o.dir}
	return simulateRound(t, o, simStart), o.dir
}

// simulateRound runs one round into o.roots with a fake clock from start.
func simulateRound(t *testing.T, o simulateOpts, start time.Time) *simulator {
	t.Helper()
	o.once = true
	clock := &fakeClock{t: start, step: 40 * time.Millisecond}
	var log bytes.Buffer
	s := newSimulator(o, clock.now, &log)
	require.NoError(t, s.run(context.Background()), log.String())
	return s
}

// everyRoot is one root per format under a new directory, by format name.
func everyRoot(t *testing.T) map[string]string {
	t.Helper()
	dir := t.TempDir()
	roots := map[string]string{}
	for _, f := range sampleFormats {
		roots[f.Format] = filepath.Join(dir, f.DemoRoot)
	}
	return roots
}

// auditTree returns journalship verify's reports for every file under
// dirs, each format found as the plugin finds it.
func auditTree(t *testing.T, dirs ...string) []audit.Report {
	t.Helper()
	var reps []audit.Report
	_, err := audit.Tree(dirs, audit.DefaultConfig(), func(r audit.Report) { reps = append(reps, r) })
	require.NoError(t, err)
	return reps
}

// rootList is the roots' directories, in sampleFormats' order.
func rootList(roots map[string]string) []string {
	var out []string
	for _, f := range sampleFormats {
		if r, ok := roots[f.Format]; ok {
			out = append(out, r)
		}
	}
	return out
}

var sessionPath = regexp.MustCompile(`^[0-9a-f-]{36}/session_\d{8}T\d{6}Z_agent-worker-[a-z0-9]+-[a-z0-9]+\.jsonl$`)

// TestSimulateOnceWritesValidJournals: every file is a valid journal by
// the auditor; crashed sessions (every 3rd) end in a partial line without
// SESSION_END, the others end with SESSION_END and nothing after it.
func TestSimulateOnceWritesValidJournals(t *testing.T) {
	s, dir := simulateOnce(t, simulateOpts{seed: 7, crashEvery: 3, jobs: 6})
	reps := auditTree(t, dir)
	require.Len(t, reps, s.started, "one file per session")
	crashed := 0
	for _, r := range reps {
		rel, err := filepath.Rel(dir, r.Path)
		require.NoError(t, err)
		assert.Regexp(t, sessionPath, filepath.ToSlash(rel))
		assert.Zero(t, r.CorruptLines+r.SchemaInvalidLines, r.Path)
		assert.Zero(t, r.SeqGapCount+r.DuplicateSeqs+r.Regressions, r.Path)
		assert.Empty(t, r.Problems, r.Path)
		assert.NotEqual(t, r.TailTruncated, r.SessionEnded, "%s: either crashed or ended", r.Path)
		if r.TailTruncated {
			crashed++
		}
	}
	assert.Equal(t, s.started/3, crashed, "every third session crashes")
	assert.Equal(t, crashed, s.crashes)
	assert.GreaterOrEqual(t, crashed, 1)
}

// TestSimulateWritesTheSampleContent: each line is internal/sample/cortex's
// line with the time of writing as its timestamp; a crash leaves a strict
// prefix of the next line; timestamps never decrease and the file is
// named after its SESSION_START.
func TestSimulateWritesTheSampleContent(t *testing.T) {
	o := simulateOpts{seed: 11, crashEvery: 2, jobs: 5}
	s, dir := simulateOnce(t, o)
	c, err := roundCorpus(lookupSampleFormat(cortexsample.FormatName), o.seed, 0, o.jobs, simStart)
	require.NoError(t, err)
	want := map[string]sample.File{}
	for _, f := range c.Files {
		want[f.SessionID] = f
	}
	files := 0
	walkJournals(t, dir, func(rel string, data []byte) {
		files++
		lines := strings.Split(string(data), "\n")
		tail := lines[len(lines)-1]
		lines = lines[:len(lines)-1]
		require.NotEmpty(t, lines, rel)
		f, ok := want[field(t, lines[0], "session_id")]
		require.True(t, ok, "%s: a generated session", rel)
		assert.Equal(t, f.JobID, filepath.Dir(rel))
		checkLines(t, rel, lines, f)
		start := timestamp(t, lines[0])
		assert.Contains(t, rel, "session_"+start.Format("20060102T150405Z")+"_"+f.Pod+".jsonl")
		if tail == "" {
			assert.Len(t, lines, len(f.Lines), "%s: a session that did not crash is complete", rel)
			return
		}
		next := maskTimestamp(f.Lines[len(lines)].Text)
		assert.True(t, len(tail) < len(next) && strings.HasPrefix(next, maskTimestamp(tail)), "%s: the partial line is a prefix of the next line", rel)
	})
	assert.Equal(t, s.started, files)
}

func checkLines(t *testing.T, rel string, lines []string, f sample.File) {
	t.Helper()
	prev := time.Time{}
	for i, l := range lines {
		ts := timestamp(t, l)
		assert.Equal(t, f.Lines[i].Text, sample.Restamp(l, mustTime(t, f.Lines[i].Text)), "%s line %d", rel, i)
		assert.False(t, ts.Before(prev), "%s line %d: timestamps never decrease", rel, i)
		assert.False(t, ts.Before(simStart), "%s line %d: stamped by the clock", rel, i)
		prev = ts
	}
}

// maskTimestamp blanks the timestamp's value, or the part of it present.
func maskTimestamp(line string) string {
	const key = `"timestamp":"`
	i := strings.Index(line, key)
	if i < 0 {
		return line
	}
	i += len(key)
	n := min(len(sample.TimestampLayout), len(line)-i)
	return line[:i] + strings.Repeat("X", n) + line[i+n:]
}

func walkJournals(t *testing.T, dir string, fn func(rel string, data []byte)) {
	t.Helper()
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		rel, err := filepath.Rel(dir, p)
		fn(filepath.ToSlash(rel), data)
		return err
	}))
}

func field(t *testing.T, line, key string) string {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal([]byte(line), &m), line)
	s, _ := m[key].(string)
	return s
}

func timestamp(t *testing.T, line string) time.Time {
	t.Helper()
	return mustTime(t, line)
}

func mustTime(t *testing.T, line string) time.Time {
	t.Helper()
	ts, err := time.Parse(sample.TimestampLayout, field(t, line, "timestamp"))
	require.NoError(t, err, line)
	return ts
}

// TestSimulateIsDeterministic: the same seed and clock give the same bytes.
func TestSimulateIsDeterministic(t *testing.T) {
	a, b := everyRoot(t), everyRoot(t)
	simulateRound(t, simulateOpts{roots: a, seed: 3, crashEvery: 4, jobs: 4}, simStart)
	simulateRound(t, simulateOpts{roots: b, seed: 3, crashEvery: 4, jobs: 4}, simStart)
	for _, f := range sampleFormats {
		got := map[string]string{}
		walkJournals(t, a[f.Format], func(rel string, data []byte) { got[rel] = string(data) })
		n := 0
		walkJournals(t, b[f.Format], func(rel string, data []byte) {
			n++
			assert.Equal(t, got[rel], string(data), rel)
		})
		assert.Equal(t, len(got), n, f.Format)
		assert.NotZero(t, n, f.Format)
	}
}

// cancelAfter cancels once it has been written n "ended" log lines.
type cancelAfter struct {
	n      int
	cancel context.CancelFunc
}

func (c *cancelAfter) Write(p []byte) (int, error) {
	if c.n -= bytes.Count(p, []byte(" ended (")); c.n <= 0 {
		c.cancel()
	}
	return len(p), nil
}

// TestSimulateKeepsGoingUntilInterrupted: without --once rounds follow one
// another (more jobs than one round holds) until the context ends, and
// run then returns nil leaving only whole lines behind.
func TestSimulateKeepsGoingUntilInterrupted(t *testing.T) {
	roots := everyRoot(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	clock := &fakeClock{t: simStart, step: time.Second}
	s := newSimulator(simulateOpts{roots: roots, seed: 5, jobs: 2}, clock.now, &cancelAfter{n: 30, cancel: cancel})
	require.NoError(t, s.run(ctx))
	jobs, err := os.ReadDir(roots[cortexsample.FormatName])
	require.NoError(t, err)
	assert.Greater(t, len(jobs), 4, "several rounds of 2 jobs")
	formats := map[string]int{}
	for _, r := range auditTree(t, rootList(roots)...) {
		formats[r.Format]++
		assert.False(t, r.TailTruncated, "%s: no crash without --crash-every", r.Path)
		assert.Zero(t, r.CorruptLines+r.SeqGapCount, r.Path)
	}
	for _, f := range sampleFormats {
		assert.Greater(t, formats[f.Format], 2, "%s: several rounds", f.Format)
	}
}

// TestSimulateWaitsTheInterval: with the real clock and an interval, lines
// arrive over time and an interruption mid-session stops at once.
func TestSimulateWaitsTheInterval(t *testing.T) {
	roots := everyRoot(t)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	begin := time.Now()
	require.NoError(t, newSimulator(simulateOpts{roots: roots, seed: 9, jobs: 3, interval: 20 * time.Millisecond}, time.Now, io.Discard).run(ctx))
	elapsed := time.Since(begin)
	assert.Less(t, elapsed, 2*time.Second, "stops when interrupted")
	lines := 0
	for _, r := range auditTree(t, rootList(roots)...) {
		lines += r.TotalLines
		assert.False(t, r.TailTruncated, "%s: an interruption leaves whole lines", r.Path)
		assert.Zero(t, r.CorruptLines, r.Path)
	}
	assert.LessOrEqual(t, lines, int(elapsed/(20*time.Millisecond))+1, "at most one line per interval")
	assert.GreaterOrEqual(t, lines, 3, "lines were written")
}

func TestParseSimulate(t *testing.T) {
	o, err := parseSimulate([]string{"--dir", "/data/sessions", "--interval", "250ms", "--seed", "42", "--crash-every", "5", "--jobs", "2", "--once"}, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, simulateOpts{dir: "/data/sessions", roots: map[string]string{"cortex": "/data/sessions"},
		interval: 250 * time.Millisecond, seed: 42, crashEvery: 5, jobs: 2, once: true}, o)
	o, err = parseSimulate([]string{"--dir=/x"}, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, simulateOpts{dir: "/x", roots: map[string]string{"cortex": "/x"}, interval: time.Second, seed: 1, jobs: 4}, o,
		"defaults; --dir alone writes Cortex Plane only")
	for _, bad := range [][]string{
		{},
		{"--dir", "/x", "extra"},
		{"--dir", "/x", "--interval", "-1s"},
		{"--dir", "/x", "--crash-every", "-1"},
		{"--dir", "/x", "--jobs", "0"},
		{"--dir", "/x", "--bogus"},
		{"--format-roots", "codelia"},
		{"--format-roots", "claude=/c"},
		{"--format-roots", "unknown=/u"},
		{"--format-roots", "codelia=/c:/d"},
		{"--dir", "/x", "--format-roots", "cortex=/y"},
	} {
		_, err := parseSimulate(bad, io.Discard)
		var ue *usageError
		assert.ErrorAs(t, err, &ue, "%q", bad)
	}
	var help bytes.Buffer
	_, err = parseSimulate([]string{"-h"}, &help)
	assert.Zero(t, exitStatus(err, io.Discard), "help is not an error")
	assert.Contains(t, help.String(), "Usage: journalship simulate --dir DIR | --format-roots cortex=DIR,codelia=DIR,orbitmesh=DIR,claude-code=DIR")
	for _, f := range sampleFormats {
		assert.Contains(t, help.String(), f.Format, "the help names every format")
	}

	o, err = parseSimulate([]string{"--dir=/x", "--once"}, io.Discard)
	require.NoError(t, err)
	assert.Zero(t, o.interval, "--once writes as fast as it can unless --interval is given")
	o, err = parseSimulate([]string{"--dir=/x", "--once", "--interval=1s"}, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, time.Second, o.interval)
}

// TestParseSimulateFormatRoots: --format-roots takes the plugin's
// Format_Roots syntax, one directory per format; the formats it names are
// written, the others not; --dir is Cortex Plane's root and may repeat it.
func TestParseSimulateFormatRoots(t *testing.T) {
	o, err := parseSimulate([]string{"--format-roots", "cortex=/data/sessions, codelia=/data/codelia/,orbitmesh=/data/orbitmesh,claude-code=/data/claude/projects,go-session=/data/go-session,codex=/data/codex"}, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"cortex": "/data/sessions", "codelia": "/data/codelia", "orbitmesh": "/data/orbitmesh",
		"claude-code": "/data/claude/projects", "go-session": "/data/go-session", "codex": "/data/codex"}, o.roots)
	assert.Equal(t, "/data/sessions", o.dir, "Cortex Plane's root is --dir's")
	assert.Equal(t, sampleFormatNames(), simulatedFormats(o), "every format, in the table's order")

	o, err = parseSimulate([]string{"--format-roots=orbitmesh=om"}, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"orbitmesh": "om"}, o.roots, "a relative root, as --dir may be")
	assert.Empty(t, o.dir, "no Cortex Plane")
	assert.Equal(t, []string{"orbitmesh"}, simulatedFormats(o))

	o, err = parseSimulate([]string{"--format-roots=claude-code=/home/dev/.claude/projects,codelia=/c"}, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, []string{"codelia", "claude-code"}, simulatedFormats(o), "in the table's order")

	o, err = parseSimulate([]string{"--dir=/d/", "--format-roots=cortex=/d,codelia=/c"}, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"cortex": "/d", "codelia": "/c"}, o.roots, "--dir may name cortex's root again")

	o, err = parseSimulate([]string{"--dir=/d", "--format-roots=codelia=/c"}, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"cortex": "/d", "codelia": "/c"}, o.roots)
}

// simulatedFormats names the formats a simulator with o writes.
func simulatedFormats(o simulateOpts) []string {
	var out []string
	for _, f := range newSimulator(o, time.Now, io.Discard).formats {
		out = append(out, f.Format)
	}
	return out
}

// TestSampleFormatsAreRegistered: every format simulate and demo write is
// a registered format, and its generator labels its files with its name.
func TestSampleFormatsAreRegistered(t *testing.T) {
	require.Len(t, sampleFormats, len(registry.All()), "every registered format is simulated")
	for _, f := range sampleFormats {
		require.NotNil(t, registry.Lookup(f.Format), f.Format)
		c, err := f.Generate(1, f.MinFaults, simStart, true)
		require.NoError(t, err, f.Format)
		require.NotEmpty(t, c.Files, f.Format)
		for _, file := range c.Files {
			assert.Equal(t, f.Format, file.Format, file.Rel)
		}
	}
}

// deployedCommands returns the journalship command lines of the DaemonSet
// and of docker-compose.yml, by where they come from.
func deployedCommands(t *testing.T) map[string][]string {
	t.Helper()
	var ds appsv1.DaemonSet
	require.NoError(t, yaml.Unmarshal(readRepoFile(t, "deploy/daemonset/daemonset.yaml"), &ds))
	cmds := map[string][]string{}
	for _, c := range ds.Spec.Template.Spec.Containers {
		if c.Name == "retention" {
			cmds["daemonset retention"] = c.Args
		}
	}
	var compose struct {
		Services map[string]struct {
			Command []string `yaml:"command"`
		} `yaml:"services"`
	}
	require.NoError(t, yamlv3.Unmarshal(readRepoFile(t, "docker-compose.yml"), &compose))
	for _, name := range []string{"retention", "simulator"} {
		cmds["compose "+name] = compose.Services[name].Command
	}
	return cmds
}

func readRepoFile(t *testing.T, rel string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", rel))
	require.NoError(t, err)
	return data
}

// TestDeployedCommandLines: the retention and simulate command lines the
// DaemonSet and docker compose run are accepted by the commands' own flag
// parsers and configuration checks (the plugin's settings, tenants
// included, as the output checks them).
func TestDeployedCommandLines(t *testing.T) {
	cmds := deployedCommands(t)
	require.Len(t, cmds, 3)
	// The first root each retention sweeps: Cortex Plane's (team A's in
	// the DaemonSet's example of two teams).
	firstRoot := map[string]string{"daemonset retention": "/data/team-a/sessions", "compose retention": "/data/sessions"}
	for where, args := range cmds {
		require.NotEmpty(t, args, where)
		switch args[0] {
		case "retention":
			fs := flag.NewFlagSet("retention", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			get, o := retentionFlags(fs)
			require.NoError(t, fs.Parse(args[1:]), where)
			assert.Zero(t, fs.NArg(), where)
			require.NoError(t, o.cfg.Validate(), where)
			_, err := output.CheckSettings(get)
			require.NoError(t, err, where)
			_, closeStatus, err := buildStatus(o)
			require.NoError(t, err, where)
			closeStatus()
			roots := retention.ParseRoots(o.roots)
			require.NotEmpty(t, roots, where)
			assert.Equal(t, firstRoot[where], roots[0], where)
			assert.NotEqual(t, "127.0.0.1:2022", get("Metrics_Address"), "%s: metrics reachable from Prometheus", where)
		case "simulate":
			o, err := parseSimulate(args[1:], io.Discard)
			require.NoError(t, err, where)
			assert.Equal(t, "/data/sessions", o.dir)
			for name, root := range o.roots {
				assert.True(t, filepath.IsAbs(root), "%s: %s's root %s is absolute, as Format_Roots needs", where, name, root)
			}
			assert.False(t, o.once, "the simulator keeps writing")
			assert.Positive(t, o.crashEvery, "and crashes now and then")
		default:
			t.Errorf("%s: unexpected command %q", where, args[0])
		}
	}
}
