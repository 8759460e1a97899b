package e2e

// Helpers of realdata_test.go: the real journals (../shared/realdata,
// written by the agent runtimes' own code) copied into a node's temp dir,
// read independently of journalship (their lines, byte offsets, own times
// and stated token usage), and what a real Loki holds of them.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/journalship/journalship/internal/lokiquery"
	"github.com/journalship/journalship/internal/realdata"
	"github.com/journalship/journalship/internal/sample"
	"github.com/stretchr/testify/require"
)

// realFormats are the format roots of the real journals, relative to the
// realdata directory, as a user names them in Format_Roots: Claude Code's
// projects directory and the directory of the headless stream-json
// capture (whose file name is its capturer's, found by its content under
// the format's root), OrbitMesh's base directory, Goat's session store.
var realFormats = []struct{ format, dir string }{
	{"claude-code", "claude-code/projects"},
	{"claude-code", "claude-code/stream-json"},
	{"orbitmesh", "orbitmesh"},
	{"go-session", "go-session"},
}

// realNode is a node whose disks hold a copy of every real journal.
type realNode struct {
	root     string   // the copy of ../shared/realdata
	roots    string   // --format-roots / Format_Roots
	dirs     []string // the format roots' directories, to ship
	journals []*realJournal
}

// realJournal is one real journal, read without journalship.
type realJournal struct {
	path   string // in the copy
	rel    string // relative to the copy's root
	format string
	size   int64
	mtime  time.Time
	lines  []realLine
}

// realLine is one complete line of a real journal.
type realLine struct {
	offset int64
	text   string
	at     time.Time // the line's own time; zero when it states none
}

// newRealNode copies the real journals (every format's) into a temp dir,
// keeping their modification times (a capture without times ships at its
// file's), and reads them. ../shared/realdata is never written.
func newRealNode(t *testing.T) *realNode {
	t.Helper()
	n := &realNode{root: filepath.Join(t.TempDir(), "realdata")}
	var roots []string
	seen := map[string]bool{}
	for _, f := range realFormats {
		top := strings.Split(f.dir, "/")[0]
		if !seen[top] {
			seen[top] = true
			copyTree(t, realdata.Dir(t, top), filepath.Join(n.root, top))
		}
		dir := filepath.Join(n.root, f.dir)
		n.dirs = append(n.dirs, dir)
		if len(roots) > 0 && strings.HasPrefix(roots[len(roots)-1], f.format+"=") {
			roots[len(roots)-1] += ":" + dir
		} else {
			roots = append(roots, f.format+"="+dir)
		}
		n.journals = append(n.journals, readJournals(t, n.root, dir, f.format)...)
	}
	n.roots = strings.Join(roots, ",")
	require.NotEmpty(t, n.journals)
	return n
}

// lines counts the complete lines of every journal.
func (n *realNode) lines() int {
	c := 0
	for _, j := range n.journals {
		c += len(j.lines)
	}
	return c
}

// corpus is the journals as a sample.Corpus of lines only (no truth), for
// chunksOf.
func (n *realNode) corpus() *sample.Corpus {
	c := &sample.Corpus{}
	for _, j := range n.journals {
		f := sample.File{Rel: j.rel}
		for _, l := range j.lines {
			f.Lines = append(f.Lines, sample.Line{Offset: l.offset, Text: l.text})
		}
		c.Files = append(c.Files, f)
	}
	return c
}

// journal returns the journal at path, nil if none.
func (n *realNode) journal(path string) *realJournal {
	for _, j := range n.journals {
		if j.path == path {
			return j
		}
	}
	return nil
}

// copyTree copies the regular files and directories under src to dst,
// with their modification times.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	var dirs []string
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		to := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			dirs = append(dirs, p)
			return os.MkdirAll(to, 0o755)
		case !info.Mode().IsRegular():
			return nil
		}
		data, err := os.ReadFile(p)
		if err == nil {
			err = os.WriteFile(to, data, 0o644)
		}
		if err == nil {
			err = os.Chtimes(to, info.ModTime(), info.ModTime())
		}
		return err
	})
	require.NoError(t, err)
	for i := len(dirs) - 1; i >= 0; i-- { // after their files were written
		info, err := os.Stat(dirs[i])
		require.NoError(t, err)
		rel, _ := filepath.Rel(src, dirs[i])
		require.NoError(t, os.Chtimes(filepath.Join(dst, rel), info.ModTime(), info.ModTime()))
	}
}

// readJournals reads every *.jsonl under dir.
func readJournals(t *testing.T, root, dir, format string) []*realJournal {
	t.Helper()
	var out []*realJournal
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".jsonl") {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		j := &realJournal{path: p, rel: rel, format: format, size: info.Size(), mtime: info.ModTime()}
		for off := 0; off < len(data); {
			end := bytes.IndexByte(data[off:], '\n')
			if end < 0 {
				break // a torn last line: not a complete line
			}
			text := string(data[off : off+end])
			j.lines = append(j.lines, realLine{offset: int64(off), text: text, at: ownTime(t, text)})
			off += end + 1
		}
		out = append(out, j)
		return nil
	})
	require.NoError(t, err)
	sort.Slice(out, func(a, b int) bool { return out[a].path < out[b].path })
	return out
}

// ownTime is the time a line states: its top-level "timestamp" (every
// format here), or a Claude Code file-history-snapshot's
// snapshot.timestamp; zero for a line that states none (a summary, the
// stream-json capture's lines, a Go session's transcript.jsonl).
func ownTime(t *testing.T, line string) time.Time {
	var v struct {
		Timestamp *string `json:"timestamp"`
		Snapshot  struct {
			Timestamp *string `json:"timestamp"`
		} `json:"snapshot"`
	}
	require.NoError(t, json.Unmarshal([]byte(line), &v), line)
	s := v.Timestamp
	if s == nil {
		s = v.Snapshot.Timestamp
	}
	if s == nil {
		return time.Time{}
	}
	ts, err := time.Parse(time.RFC3339Nano, *s)
	require.NoError(t, err, line)
	return ts
}

// span is the times the entries of the node may carry: from its oldest
// line's own time to now.
func (n *realNode) span() (from, to time.Time) {
	from = time.Now()
	for _, j := range n.journals {
		for _, l := range j.lines {
			if !l.at.IsZero() && l.at.Before(from) {
				from = l.at
			}
		}
		if j.mtime.Before(from) {
			from = j.mtime
		}
	}
	return from.Add(-time.Hour), time.Now().Add(time.Hour)
}

// entriesOf returns every entry the Loki at url holds for selector over
// the node's span, waiting until at least want are there.
func (n *realNode) entriesOf(t *testing.T, url, selector string, want int) []lokiquery.Entry {
	t.Helper()
	from, to := n.span()
	q := &lokiquery.Client{URL: url}
	// Pages of Loki's largest: a capture without times has all its lines
	// at one time, more than a default page holds.
	var got []lokiquery.Entry
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		var err error
		got, err = q.QueryRange(context.Background(), selector, from, to, 5000, lokiquery.Forward)
		require.NoError(t, err)
		if len(got) >= want || time.Now().After(deadline) {
			return got
		}
	}
}

// countsByFile counts, with a metric query (which, unlike a log query,
// counts an entry Loki stored twice twice), the entries of selector per
// file.
func (n *realNode) countsByFile(t *testing.T, url, selector string) map[string]int {
	t.Helper()
	from, to := n.span()
	q := &lokiquery.Client{URL: url}
	samples, err := q.Instant(context.Background(),
		fmt.Sprintf(`sum by (file) (count_over_time(%s [%dh]))`, selector, int(to.Sub(from).Hours())+1), to)
	require.NoError(t, err)
	out := map[string]int{}
	for _, s := range samples {
		out[s.Metric["file"]] = int(s.Value)
	}
	return out
}

// tokenSums sums the shared token keys by model over selector.
func (n *realNode) tokenSums(t *testing.T, url, selector string) map[string][4]int64 {
	t.Helper()
	from, to := n.span()
	q := &lokiquery.Client{URL: url}
	out := map[string][4]int64{}
	for i, key := range []string{"tokens_in", "tokens_out", "tokens_cache_read", "tokens_cache_write"} {
		samples, err := q.Instant(context.Background(), fmt.Sprintf(`sum by (model) (sum_over_time(%s | %s!="" | unwrap %s [%dh]))`,
			selector, key, key, int(to.Sub(from).Hours())+1), to)
		require.NoError(t, err)
		for _, s := range samples {
			v := out[s.Metric["model"]]
			v[i] = int64(s.Value)
			out[s.Metric["model"]] = v
		}
	}
	return out
}

// usage is a response's usage as Anthropic states it.
type usage struct {
	Input      int64 `json:"input_tokens"`
	Output     int64 `json:"output_tokens"`
	CacheRead  int64 `json:"cache_read_input_tokens"`
	CacheWrite int64 `json:"cache_creation_input_tokens"`
}

// tokens is the usage as the shared token keys count it: tokens_in the
// whole prompt, tokens_out, tokens_cache_read, tokens_cache_write.
func (u usage) tokens() [4]int64 {
	return [4]int64{u.Input + u.CacheRead + u.CacheWrite, u.Output, u.CacheRead, u.CacheWrite}
}

func addTokens(m map[string][4]int64, model string, v [4]int64) {
	s := m[model]
	for i := range s {
		s[i] += v[i]
	}
	m[model] = s
}

// streamJSONTokens is what a stream-json capture's result lines state the
// run used, by model (modelUsage: uncached input, output, cache reads and
// writes), as the shared token keys count it.
func streamJSONTokens(t *testing.T, j *realJournal) map[string][4]int64 {
	t.Helper()
	out := map[string][4]int64{}
	for _, l := range j.lines {
		var r struct {
			Type       string `json:"type"`
			ModelUsage map[string]struct {
				InputTokens, OutputTokens, CacheReadInputTokens, CacheCreationInputTokens int64
			} `json:"modelUsage"`
		}
		require.NoError(t, json.Unmarshal([]byte(l.text), &r))
		if r.Type != "result" {
			continue
		}
		for m, u := range r.ModelUsage {
			addTokens(out, m, usage{Input: u.InputTokens, Output: u.OutputTokens, CacheRead: u.CacheReadInputTokens, CacheWrite: u.CacheCreationInputTokens}.tokens())
		}
	}
	require.NotEmpty(t, out, "%s states its usage in a result line", j.rel)
	return out
}

// orbitMeshTokens is the final usage of the Claude responses an OrbitMesh
// log's provider events state, by model: each message_start opens a
// response (its id, model and first usage), a message_delta after it
// states that response's final, cumulative usage.
func orbitMeshTokens(t *testing.T, j *realJournal) map[string][4]int64 {
	t.Helper()
	type response struct {
		model string
		u     usage
	}
	var responses []*response
	for _, l := range j.lines {
		var r struct {
			Raw struct {
				Type    string `json:"type"`
				Message struct {
					Model string `json:"model"`
					Usage *usage `json:"usage"`
				} `json:"message"`
				Usage *usage `json:"usage"`
			} `json:"raw"`
		}
		require.NoError(t, json.Unmarshal([]byte(l.text), &r))
		switch {
		case r.Raw.Type == "message_start" && r.Raw.Message.Usage != nil:
			responses = append(responses, &response{model: r.Raw.Message.Model, u: *r.Raw.Message.Usage})
		case r.Raw.Type == "message_delta" && r.Raw.Usage != nil && len(responses) > 0:
			responses[len(responses)-1].u = *r.Raw.Usage
		}
	}
	out := map[string][4]int64{}
	for _, r := range responses {
		addTokens(out, r.model, r.u.tokens())
	}
	return out
}

// offsetOf is an entry's byte_offset, -1 when it has none.
func offsetOf(e lokiquery.Entry) int64 {
	n, err := strconv.ParseInt(e.Metadata["byte_offset"], 10, 64)
	if err != nil {
		return -1
	}
	return n
}

// jsonLines splits a command's JSON-lines output.
func jsonLines(t *testing.T, out string) []map[string]any {
	t.Helper()
	var rows []map[string]any
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var m map[string]any
		require.NoError(t, json.Unmarshal(sc.Bytes(), &m), sc.Text())
		rows = append(rows, m)
	}
	require.NoError(t, sc.Err())
	return rows
}

// transcriptTokens is what a Claude Code transcript's assistant lines
// state, by model: each response (message.id) once, at its largest
// usage (a response is written as one line per content block, each with
// the usage streamed so far), leaving out the CLI's own <synthetic>
// lines and lines copied from another session (a sessionId not the
// path's). The real subagent files copy no response of their main
// transcript.
func transcriptTokens(t *testing.T, j *realJournal) map[string][4]int64 {
	t.Helper()
	session := strings.TrimSuffix(filepath.Base(j.path), ".jsonl")
	if filepath.Base(filepath.Dir(j.path)) == "subagents" {
		session = filepath.Base(filepath.Dir(filepath.Dir(j.path)))
	}
	type response struct {
		model string
		max   [4]int64
	}
	byID := map[string]*response{}
	var order []string
	for _, l := range j.lines {
		var r struct {
			Type      string `json:"type"`
			SessionID string `json:"sessionId"`
			Message   struct {
				ID    string `json:"id"`
				Model string `json:"model"`
				Usage *usage `json:"usage"`
			} `json:"message"`
		}
		require.NoError(t, json.Unmarshal([]byte(l.text), &r))
		if r.Type != "assistant" || r.Message.Usage == nil || r.Message.Model == "<synthetic>" || r.SessionID != session {
			continue
		}
		resp := byID[r.Message.ID]
		if resp == nil {
			resp = &response{model: r.Message.Model}
			byID[r.Message.ID] = resp
			order = append(order, r.Message.ID)
		}
		for i, v := range r.Message.Usage.tokens() {
			resp.max[i] = max(resp.max[i], v)
		}
	}
	out := map[string][4]int64{}
	for _, id := range order {
		addTokens(out, byID[id].model, byID[id].max)
	}
	return out
}

// jsonField is a string member of a JSON object.
func jsonField(t *testing.T, line, key string) string {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal([]byte(line), &m), line)
	s, _ := m[key].(string)
	return s
}
