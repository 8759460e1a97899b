package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// clockTicks is USER_HZ, the unit of utime and stime in /proc/<pid>/stat:
// 100 on every Linux architecture Fluent Bit runs on.
const clockTicks = 100

// Output names, as given to -outputs: each is also the name of its Fluent
// Bit output plugin.
const (
	outNull        = "null"
	outLoki        = "loki" // Fluent Bit's C loki output
	outJournalship = "journalship"
	outGrafanaLoki = "grafana-loki" // grafana-loki's Go plugin
)

// setup is what every run shares.
type setup struct {
	fluentBit   string   // the fluent-bit binary
	journalship string   // bin/out_journalship.so
	grafanaLoki string   // grafana-loki's .so, "" when not measured
	tag         string   // tail's Tag
	paths       []string // tail's Path patterns
	formatRoots string   // journalship's Format_Roots
	lines       int64    // lines tail reads from the corpus: every one must arrive
	timeout     time.Duration
	stall       time.Duration // give up when nothing arrives for this long
	workDir     string        // each run's state directory is made under it
	keepLogs    bool
	// tailExtra are more settings of the tail input, "Key Value" each,
	// the same for every output.
	tailExtra []string
}

// result is one run of one output.
type result struct {
	Output   string
	Round    int
	CPU      float64 // Fluent Bit's user+system CPU seconds until done
	Wall     float64 // seconds from start until done
	PeakRSS  float64 // VmHWM, MB
	Counts   counts  // what the stand-in received (zero for null)
	Records  int64   // tail's records, from Fluent Bit's metrics (null only)
	Complete bool    // every line arrived (null: was read)
	Note     string  // why a run is incomplete
}

// errExited is returned when Fluent Bit exits before a run is done.
var errExited = errors.New("fluent-bit exited early")

// run starts Fluent Bit with one tail input and output out, waits until
// every line of the corpus arrived at the stand-in (null: until tail has
// read them all), reads Fluent Bit's CPU and peak RSS, and stops it.
func (su *setup) run(out string, round int) (result, error) {
	res := result{Output: out, Round: round}
	state, err := os.MkdirTemp(su.workDir, fmt.Sprintf("state-%d-%s-", round, out))
	if err != nil {
		return res, err
	}
	if !su.keepLogs {
		defer os.RemoveAll(state)
	}
	loki, err := startStandIn()
	if err != nil {
		return res, err
	}
	defer loki.close()
	httpPort, err := freePort()
	if err != nil {
		return res, err
	}
	conf, plugin := su.config(out, state, loki, httpPort)
	confPath := filepath.Join(state, "fluent-bit.conf")
	if err := os.WriteFile(confPath, []byte(conf), 0o644); err != nil {
		return res, err
	}
	args := []string{"-c", confPath}
	if plugin != "" {
		args = append(args, "-e", plugin)
	}
	logPath := filepath.Join(state, "fluent-bit.log")
	logf, err := os.Create(logPath)
	if err != nil {
		return res, err
	}
	defer logf.Close()
	cmd := exec.Command(su.fluentBit, args...)
	cmd.Dir = state
	cmd.Stdout, cmd.Stderr = logf, logf
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return res, err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	pid := cmd.Process.Pid

	done, werr := su.wait(out, loki, httpPort, exited, &res)
	res.Wall = time.Since(start).Seconds()
	if cpu, err := procCPU(pid); err == nil {
		res.CPU = cpu
	}
	if rss, err := procPeakRSS(pid); err == nil {
		res.PeakRSS = rss
	}
	res.Counts, _, _ = loki.snapshot()
	res.Complete = done

	if !errors.Is(werr, errExited) {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	}
	if werr != nil {
		return res, fmt.Errorf("%s round %d: %w (log: %s)", out, round, werr, lastLines(logPath, 15))
	}
	return res, nil
}

// wait polls until the run is done: the stand-in holds every line, or (null)
// Fluent Bit's metrics say tail read every line. It returns false with a
// note in res when no line arrived (was read) for su.stall, and an error when Fluent Bit exited or
// the timeout passed.
func (su *setup) wait(out string, loki *standIn, httpPort int, exited <-chan error, res *result) (bool, error) {
	deadline := time.After(su.timeout)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	lastProgress, lastSeen := time.Now(), int64(-1)
	for {
		select {
		case err := <-exited:
			return false, fmt.Errorf("%w: %v", errExited, err)
		case <-deadline:
			return false, fmt.Errorf("timed out after %s", su.timeout)
		case <-tick.C:
		}
		var seen int64
		if out == outNull {
			n, err := inputRecords(httpPort)
			if err != nil {
				continue // the HTTP server is not up yet
			}
			res.Records, seen = n, n
		} else {
			c, lastErr, _ := loki.snapshot()
			if lastErr != nil {
				return false, fmt.Errorf("stand-in could not decode a push: %w", lastErr)
			}
			seen = c.Entries
		}
		if seen >= su.lines {
			return true, nil
		}
		if seen != lastSeen {
			lastSeen, lastProgress = seen, time.Now()
		} else if time.Since(lastProgress) > su.stall {
			res.Note = fmt.Sprintf("stalled at %d of %d lines", seen, su.lines)
			return false, nil
		}
	}
}

// config returns the Fluent Bit configuration of a run of out, and the Go
// plugin to load with -e ("" for the C outputs).
func (su *setup) config(out, state string, loki *standIn, httpPort int) (conf, plugin string) {
	var b strings.Builder
	fmt.Fprintf(&b, `[SERVICE]
    Flush          1
    Grace          5
    Daemon         Off
    Log_Level      info
    HTTP_Server    On
    HTTP_Listen    127.0.0.1
    HTTP_Port      %d

[INPUT]
    Name              tail
    Tag               %s
    Path              %s
    Key               log
    Path_Key          file
    Offset_Key        offset
    DB                %s
    Read_from_Head    On
    Buffer_Chunk_Size 256k
    Buffer_Max_Size   1M
`, httpPort, su.tag, strings.Join(su.paths, ","), filepath.Join(state, "tail.db"))
	kv := func(k, v string) { fmt.Fprintf(&b, "    %-17s %s\n", k, v) }
	for _, e := range su.tailExtra {
		k, v, _ := strings.Cut(strings.TrimSpace(e), " ")
		kv(k, strings.TrimSpace(v))
	}
	b.WriteString("\n[OUTPUT]\n")
	kv("Name", out)
	kv("Match", "*")
	switch out {
	case outLoki:
		kv("Host", "127.0.0.1")
		kv("Port", strconv.Itoa(loki.port()))
		kv("Labels", "service_name=agent-sessions")
		kv("Line_Format", "json")
	case outJournalship:
		plugin = su.journalship
		kv("Loki_URL", loki.url())
		kv("Ledger_Path", filepath.Join(state, "ledger.db"))
		kv("Dead_Letter_Path", filepath.Join(state, "deadletter.jsonl"))
		kv("Metrics_Address", "off")
		kv("Log_Key", "log")
		kv("Path_Key", "file")
		kv("Offset_Key", "offset")
		kv("Format_Roots", su.formatRoots)
	case outGrafanaLoki:
		plugin = su.grafanaLoki
		kv("Url", loki.url()+pushPath)
		kv("Labels", `{service_name="agent-sessions"}`)
		kv("LineFormat", "json")
	}
	return b.String(), plugin
}

// procCPU returns the user+system CPU seconds of process pid (every
// thread), from /proc/<pid>/stat.
func procCPU(pid int) (float64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name, in parentheses, may hold spaces: fields are
	// counted from the last ')'. utime and stime are fields 14 and 15.
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	f := strings.Fields(string(data[i+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f)+2)
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("/proc/%d/stat: utime %q, stime %q", pid, f[11], f[12])
	}
	return float64(utime+stime) / clockTicks, nil
}

// procPeakRSS returns the peak resident set size (VmHWM) of process pid
// in MB.
func procPeakRSS(pid int) (float64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				return 0, fmt.Errorf("VmHWM %q: %w", v, err)
			}
			return float64(kb) / 1024, nil
		}
	}
	return 0, fmt.Errorf("/proc/%d/status: no VmHWM", pid)
}

// inputRecords returns the records every input has read, from Fluent Bit's
// Prometheus metrics (fluentbit_input_records_total).
func inputRecords(port int) (int64, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("http://127.0.0.1:%d/api/v1/metrics/prometheus", port), nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("metrics: %s", resp.Status)
	}
	var total int64
	found := false
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "fluentbit_input_records_total{") {
			continue
		}
		f := strings.Fields(line[strings.LastIndexByte(line, '}')+1:])
		if len(f) == 0 {
			continue
		}
		v, err := strconv.ParseFloat(f[0], 64)
		if err != nil {
			return 0, fmt.Errorf("metrics line %q: %w", line, err)
		}
		total += int64(v)
		found = true
	}
	if !found {
		return 0, fmt.Errorf("metrics: no fluentbit_input_records_total")
	}
	return total, sc.Err()
}

// freePort returns a loopback TCP port nothing listens on right now.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// lastLines returns the last n lines of file path, for an error message.
func lastLines(path string, n int) string {
	f, err := os.Open(path)
	if err != nil {
		return err.Error()
	}
	defer f.Close()
	data, _ := io.ReadAll(f)
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return path + ":\n" + strings.Join(lines, "\n")
}
