package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/journalship/journalship/internal/lokiproc"
	"github.com/journalship/journalship/internal/lokiquery"
	"github.com/journalship/journalship/ledger"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// realNodeName is the node label of the real journals' entries.
const realNodeName = "node-real"

// realSelector selects every entry of the real journals.
const realSelector = `{service_name="agent-sessions", node="` + realNodeName + `"}`

// realMaxEntryAge is Max_Entry_Age for the test's Loki, which takes
// samples of any age (lokiproc.DefaultLimits: reject_old_samples false):
// the setting mirrors Loki's reject_old_samples_max_age, so a user of
// such a Loki sets it past their oldest journal (here September 2025).
const realMaxEntryAge = "87600h"

// realMaxBehind is Max_Behind as shipped (the default, not set): the
// test's Loki keeps its ingester's stock max_chunk_age (2h), so an entry
// over an hour behind its stream's newest is refused, and journalship
// re-stamps one within five minutes of that (docs/delivery.md, "Entries
// Loki would refuse for their time").
const (
	realMaxBehind = time.Hour
	restampSlack  = 5 * time.Minute
)

// realLoki starts a Loki of the test's own. Queries span the journals'
// fifteen months in one piece: Loki's default one-hour splits would make
// every metric query over them take seconds.
func realLoki(t *testing.T) *lokiproc.Loki {
	t.Helper()
	return lokiproc.ForTest(t, lokiproc.Config{Limits: map[string]any{
		"split_queries_by_interval":                "87600h",
		"split_instant_metric_queries_by_interval": "87600h",
	}})
}

// TestRealJournals ships the journals the agent runtimes' own code wrote
// (../shared/realdata: Claude Code transcripts and a headless stream-json
// capture, an OrbitMesh base directory, a Goat pkg/session store), copied
// onto a node, into a real Loki through each path an operator uses:
// `journalship ship`, `verify` and `finalize`; and the plugin .so in the
// C host, fed shuffled tail chunks as Fluent Bit delivers them, then
// `finalize`. After each: every complete line is in Loki exactly once,
// byte for byte, valid, under its format; no line carries an annotation
// that is not true of it; each entry carries the time its line states
// (or, re-stamped where Loki would refuse that time, keeps it in
// original_timestamp); tokens by model equal what the files state; the
// finalizer's verdict on every file is clean and the ledger accounts for
// every byte.
func TestRealJournals(t *testing.T) {
	t.Run("ship", func(t *testing.T) {
		t.Parallel()
		n := newRealNode(t)
		loki := realLoki(t)
		work := t.TempDir()
		settings := realSettings(loki.URL, filepath.Join(work, "ledger.db"), filepath.Join(work, "deadletter.jsonl"), n.roots)
		runCLI(t, append(append([]string{"ship", "--quiet"}, settings...), n.dirs...)...)
		n.checkLedger(t, filepath.Join(work, "ledger.db"), false)
		// What `journalship verify` reports of the same files: each
		// clean, its lines all valid.
		n.checkVerify(t, runCLI(t, append([]string{"verify", "--json", "--format-roots", n.roots}, n.dirs...)...))
		// A second run finds everything in the ledger and sends nothing.
		runCLI(t, append(append([]string{"ship", "--quiet"}, settings...), n.dirs...)...)
		assert.Equal(t, n.lines(), total(n.countsByFile(t, loki.URL, realSelector)), "entries after a second ship")
		runCLI(t, append(append([]string{"finalize", "--stale-after", "0s"}, settings...), n.dirs...)...)
		n.checkLedger(t, filepath.Join(work, "ledger.db"), true)
		n.checkLanded(t, loki.URL)
		noDeadLetters(t, filepath.Join(work, "deadletter.jsonl"))
	})
	t.Run("plugin", func(t *testing.T) {
		t.Parallel()
		n := newRealNode(t)
		loki := realLoki(t)
		props := append(propsFor(t, loki.URL), "Node_Name", realNodeName, "Format_Roots", n.roots,
			"Max_Entry_Age", realMaxEntryAge)
		ledgerPath, deadLetters := props[3], props[5]
		rounds, retries := flushUntilAcknowledged(t, chunksOf(t, n.corpus(), n.root, 17, 40), props, "sessions.real")
		t.Logf("plugin: %d rounds, %d flushes retried", rounds, retries)
		n.checkLedger(t, ledgerPath, false)
		// The finalizer of the same node: the plugin's ledger and settings.
		settings := realSettings(loki.URL, ledgerPath, deadLetters, n.roots)
		runCLI(t, append(append([]string{"finalize", "--stale-after", "0s"}, settings...), n.dirs...)...)
		n.checkLedger(t, ledgerPath, true)
		n.checkLanded(t, loki.URL)
		noDeadLetters(t, deadLetters)
	})
}

// realSettings are the CLI's settings for the node: the Loki at url, the
// ledger and dead letters, the format roots.
func realSettings(url, ledgerPath, deadLetters, roots string) []string {
	return []string{"--loki-url", url, "--ledger-path", ledgerPath, "--dead-letter-path", deadLetters,
		"--format-roots", roots, "--node-name", realNodeName, "--max-entry-age", realMaxEntryAge, "--metrics-address", "off"}
}

// runCLI runs the journalship CLI and returns its stdout; it must exit 0.
func runCLI(t *testing.T, args ...string) string {
	t.Helper()
	out, err := command("", journalshipCLI(t), args...)
	require.NoError(t, err, out)
	return out
}

// noDeadLetters checks that the dead-letter file at path is empty or absent.
func noDeadLetters(t *testing.T, path string) {
	t.Helper()
	dl, err := os.ReadFile(path)
	if err == nil {
		assert.Empty(t, strings.TrimSpace(string(dl)), "no line dead-lettered")
	}
}

// total sums the counts of m.
func total(m map[string]int) int {
	s := 0
	for _, v := range m {
		s += v
	}
	return s
}

// checkLedger checks that the ledger holds every journal whole, as one
// range of all its lines, and, once finalized, marked finished at its size.
func (n *realNode) checkLedger(t *testing.T, path string, finished bool) {
	t.Helper()
	l, err := ledger.Open(ledger.Config{Path: path, ReadOnly: true})
	require.NoError(t, err)
	defer l.Close()
	for _, j := range n.journals {
		st, err := l.File(context.Background(), j.path)
		require.NoError(t, err)
		assert.Equal(t, j.size, st.Watermark, "%s: every byte shipped", j.rel)
		if assert.Len(t, st.Ranges, 1, j.rel) {
			assert.Equal(t, len(j.lines), st.Ranges[0].Lines, "%s: lines in the ledger", j.rel)
		}
		if finished {
			assert.True(t, st.Finished, "%s: finished", j.rel)
			assert.Equal(t, j.size, st.Size, "%s: finished at its size", j.rel)
		}
	}
}

// checkVerify checks `verify --json`'s report: one clean row per journal
// with all its lines valid, and nothing else.
func (n *realNode) checkVerify(t *testing.T, out string) {
	t.Helper()
	rows := jsonLines(t, out)
	require.NotEmpty(t, rows)
	summary, rows := rows[len(rows)-1]["summary"].(map[string]any), rows[:len(rows)-1]
	require.NotNil(t, summary, "the report ends with its summary")
	assert.Equal(t, "clean", summary["level"])
	assert.EqualValues(t, len(n.journals), summary["files"])
	assert.EqualValues(t, n.lines(), summary["lines"])
	require.Len(t, rows, len(n.journals))
	for _, r := range rows {
		j := n.journal(r["path"].(string))
		if !assert.NotNil(t, j, "verify reports %s", r["path"]) {
			continue
		}
		assert.Equal(t, "clean", r["level"], "%s: %v", j.rel, r["problems"])
		assert.Equal(t, j.format, r["format"], j.rel)
		assert.EqualValues(t, len(j.lines), r["total_lines"], j.rel)
		assert.EqualValues(t, len(j.lines), r["valid_lines"], j.rel)
		assert.Empty(t, r["problems"], j.rel)
	}
}

// checkLanded runs every check of what Loki holds once a path has
// shipped and finalized the node's journals.
func (n *realNode) checkLanded(t *testing.T, url string) {
	t.Helper()
	synthetic := n.finalizerEntries(t)
	want := n.lines() + total(synthetic)
	es := n.entriesOf(t, url, realSelector, want)
	var lines []lokiquery.Entry
	bySynthetic := map[string]int{}
	for _, e := range es {
		if offsetOf(e) >= 0 {
			lines = append(lines, e)
		} else {
			bySynthetic[e.Stream["event_type"]]++
		}
	}
	assert.Equal(t, synthetic, bySynthetic, "the finalizer's entries")
	// Exactly once: the distinct entries, and a metric count per file,
	// which counts an entry Loki stored twice twice.
	distinct := map[string]int{}
	for _, e := range es {
		distinct[e.Metadata["file"]]++
	}
	assert.Equal(t, distinct, n.countsByFile(t, url, realSelector), "entries stored, duplicates included")

	byPlace := map[string]lokiquery.Entry{}
	for _, e := range lines {
		place := fmt.Sprintf("%s@%d", e.Metadata["file"], offsetOf(e))
		_, dup := byPlace[place]
		assert.False(t, dup, "%s in Loki twice", place)
		byPlace[place] = e
	}
	require.Equal(t, n.lines(), len(byPlace), "every complete line, once")
	census := map[string]map[string]int{}
	st := newStreamTimes(es)
	for _, j := range n.journals {
		if census[j.format] == nil {
			census[j.format] = map[string]int{}
		}
		var prev time.Time       // the time a line without its own takes
		var timeless []timedLine // the lines before any time in the file
		for _, l := range j.lines {
			where := fmt.Sprintf("%s offset %d", j.rel, l.offset)
			e, ok := byPlace[fmt.Sprintf("%s@%d", j.path, l.offset)]
			if !assert.True(t, ok, "%s is in Loki", where) {
				continue
			}
			assert.Equal(t, l.text, e.Line, "%s: byte-exact", where)
			assert.Equal(t, j.format, e.Stream["format"], where)
			assert.Equal(t, "valid", e.Metadata["integrity"], where)
			// A line stating no time takes the time of the line before it
			// in its file; one with no time before it, its file's
			// modification time (docs/loki.md, "The line and its time"): own is
			// then zero.
			own := cmpOr(l.at, prev)
			prev = own
			kinds := annotations(e)
			for _, k := range kinds {
				census[j.format][k]++
				if why := falseAnnotation(j, l, e, k, own, st); why != "" {
					t.Errorf("%s: false annotation %s: %s\n%.300s", where, k, why, l.text)
				}
			}
			switch {
			case own.IsZero():
				// Such a line is placed at its file's place base plus its
				// offset, the base first chosen as the file's modification
				// time; re-stamped for its age, that place is its
				// original_timestamp (its new time checked by
				// falseAnnotation).
				at := e.Time
				if slices.Contains(kinds, "timestamp_rewritten") {
					at, _ = time.Parse(time.RFC3339Nano, e.Metadata["original_timestamp"])
				}
				assert.True(t, nearModTime(j, at), "%s: placed at %v, its file's modification time is %v", where, at, j.mtime)
				timeless = append(timeless, timedLine{l.offset, at})
			case slices.Contains(kinds, "timestamp_rewritten"): // its own time checked by falseAnnotation
			default:
				assert.True(t, own.Equal(e.Time), "%s: entry at %v, its own time is %v", where, e.Time, own)
			}
		}
		// However the file was cut into chunks and in whichever order
		// they came, each line without a time is at one base plus its own
		// offset: in file order, and the same entry on a re-ship.
		assert.True(t, basePlusOffset(timeless),
			"%s: its lines without a time are placed by how it was chunked: %s", j.rel, describeTimes(timeless))
	}
	// The first entry re-stamped in a stream was too far behind an entry
	// stored at its own time; the later ones may be behind the re-stamped
	// ones too, which Loki holds in the same stream.
	for key, n := range st.restamped {
		assert.True(t, st.forced[key], "%d entries of %s re-stamped, none over Max_Behind behind an entry stored at its own time", n, key)
	}
	for f, kinds := range census {
		t.Logf("annotations on the %s lines: %v", f, kinds)
	}
	n.checkFinalizerEntries(t, es)
	n.checkTokens(t, url)
}

// annotations are an entry's annotation kinds.
func annotations(e lokiquery.Entry) []string {
	if e.Metadata["annotations"] == "" {
		return nil
	}
	return strings.Split(e.Metadata["annotations"], ",")
}

// timedLine is where a line is and the time its entry has.
type timedLine struct {
	offset int64
	at     time.Time
}

// nearModTime tells whether t places a line of j with its file's
// modification time: at it, or at the re-stamp base a decision took from
// it plus or minus at most the file's size in nanoseconds.
func nearModTime(j *realJournal, t time.Time) bool {
	d := t.Sub(j.mtime)
	return d.Abs() <= time.Duration(j.size)
}

// basePlusOffset tells whether each line is at one base time plus its
// byte offset in nanoseconds.
func basePlusOffset(ls []timedLine) bool {
	for _, l := range ls {
		if !l.at.Add(-time.Duration(l.offset)).Equal(ls[0].at.Add(-time.Duration(ls[0].offset))) {
			return false
		}
	}
	return true
}

// describeTimes lists the distinct times of ls with the first offset at
// each, at most ten.
func describeTimes(ls []timedLine) string {
	var parts []string
	for i, l := range ls {
		if i > 0 && l.at.Equal(ls[i-1].at) {
			continue
		}
		if len(parts) == 10 {
			parts = append(parts, "...")
			break
		}
		parts = append(parts, fmt.Sprintf("offset %d at %s", l.offset, l.at.Format(time.RFC3339Nano)))
	}
	return strings.Join(parts, ", ")
}

func cmpOr(a, b time.Time) time.Time {
	if !a.IsZero() {
		return a
	}
	return b
}

// streamKey names an entry's stream.
func streamKey(e lokiquery.Entry) string {
	keys := make([]string, 0, len(e.Stream))
	for k := range e.Stream {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%s=%q,", k, e.Stream[k])
	}
	return b.String()
}

// streamTimes is what the entries tell of each stream's times.
type streamTimes struct {
	newest    map[string]time.Time // the newest entry, re-stamped ones included
	kept      map[string]time.Time // the newest entry stored at its own time
	restamped map[string]int       // entries re-stamped
	forced    map[string]bool      // an entry re-stamped over Max_Behind behind a kept one
}

func newStreamTimes(es []lokiquery.Entry) *streamTimes {
	st := &streamTimes{newest: map[string]time.Time{}, kept: map[string]time.Time{},
		restamped: map[string]int{}, forced: map[string]bool{}}
	for _, e := range es {
		k := streamKey(e)
		if e.Time.After(st.newest[k]) {
			st.newest[k] = e.Time
		}
		if !slices.Contains(annotations(e), "timestamp_rewritten") && e.Time.After(st.kept[k]) {
			st.kept[k] = e.Time
		}
	}
	return st
}

// falseAnnotation returns why annotation kind on line l of j (entry e,
// own time own) is not true of it, "" when it is. Every annotation found
// on these journals is listed here with the evidence that makes it true;
// any other is false.
func falseAnnotation(j *realJournal, l realLine, e lokiquery.Entry, kind string, own time.Time, st *streamTimes) string {
	switch kind {
	case "timestamp_fallback":
		// True where the line states no time: Claude Code's summary
		// line, every line of the stream-json capture, every line of a
		// Go session's transcript.jsonl (docs/formats/claude-code.md and
		// go-session.md, "time"). Never on a line with a readable time.
		if !l.at.IsZero() {
			return "the line states its time " + l.at.Format(time.RFC3339Nano)
		}
	case "timestamp_rewritten":
		// True where Loki would refuse the entry at its own time: over
		// Max_Behind behind its stream's newest entry. The copies span
		// September 2025 to now in the same few claude-code streams
		// (format, event_type, node), and a backfill, or shuffled chunks,
		// reach a stream out of time order; once re-stamped entries (about
		// the shipping time) are in a stream, Loki refuses there every
		// later one at an older time of its own. The entry keeps its own
		// time in original_timestamp.
		orig, err := time.Parse(time.RFC3339Nano, e.Metadata["original_timestamp"])
		switch {
		case err != nil:
			return fmt.Sprintf("original_timestamp %q: %v", e.Metadata["original_timestamp"], err)
		case own.IsZero() && !nearModTime(j, orig):
			return fmt.Sprintf("original_timestamp %v, its file's modification time is %v", orig, j.mtime)
		case !own.IsZero() && !orig.Equal(own):
			return fmt.Sprintf("original_timestamp %v, the line's own time is %v", orig, own)
		}
		key := streamKey(e)
		if behind := st.newest[key].Sub(orig); behind < realMaxBehind-restampSlack {
			return fmt.Sprintf("only %v behind its stream's newest entry: Loki accepts it at its own time", behind)
		}
		st.restamped[key]++
		if st.kept[key].Sub(orig) >= realMaxBehind-restampSlack {
			st.forced[key] = true
		}
	case "cost_disagrees":
		// True on the stream-json capture's result line: the run states
		// total_cost_usd 0.60733975 (modelUsage: Sonnet 4.5 $0.60394175,
		// Haiku 4.5 $0.003398), while its tokens (Sonnet: 44 uncached in,
		// 5462 out, 296506 cache reads, 51027 one-hour cache writes;
		// Haiku: 2893 in, 101 out) cost $0.4805738 at list prices ($3,
		// $15, $0.30, $6 per million; $1, $5): over 1 % apart, a price
		// difference, no tokens missing (checkTokens).
		if e.Metadata["role"] != "session_end" || !strings.Contains(j.rel, "stream-json") {
			return "only the capture's result line states a cost"
		}
		if e.Metadata["cost_disagrees"] != "0.4805738" {
			return "computed cost " + e.Metadata["cost_disagrees"] + ", want 0.4805738"
		}
	default:
		return "not true of this runtime-written line"
	}
	return ""
}

// finalizerEntries counts the entries the finalizer ships besides the
// lines, by event_type: a file_summary per journal; per Go session, its
// metadata.json's summary and each checkpoint manifest.
func (n *realNode) finalizerEntries(t *testing.T) map[string]int {
	t.Helper()
	out := map[string]int{"file_summary": len(n.journals)}
	meta, err := filepath.Glob(filepath.Join(n.root, "go-session", "*", "metadata.json"))
	require.NoError(t, err)
	manifests, err := filepath.Glob(filepath.Join(n.root, "go-session", "*", "checkpoints", "*", "manifest.json"))
	require.NoError(t, err)
	require.NotEmpty(t, meta)
	require.NotEmpty(t, manifests)
	out["metadata"], out["checkpoint"] = len(meta), len(manifests)
	return out
}

// checkFinalizerEntries checks the finalizer's entries: every file's
// verdict clean, and no annotation but the ones true of them.
func (n *realNode) checkFinalizerEntries(t *testing.T, es []lokiquery.Entry) {
	t.Helper()
	for _, e := range es {
		if offsetOf(e) >= 0 {
			continue
		}
		where := e.Stream["event_type"] + " of " + e.Metadata["file"]
		kinds := annotations(e)
		switch e.Stream["event_type"] {
		case "file_summary":
			assert.Equal(t, "clean", e.Metadata["level"], "%s: %.600s", where, e.Line)
			assert.Equal(t, []string{"file_summary"}, kinds, where)
		case "metadata":
			// 0abf2b7b is the subagent aeed4273's Agent call started (its
			// tool result names "agentId: 0abf2b7b-…"); Goat's subagent
			// shares its parent run's cost tracker, so its figure is in
			// its parent's: cost_in_parent is true of it, and of no other.
			if strings.Contains(e.Metadata["file"], "/0abf2b7b-8d69-4da7-a4c8-26810e7f9855/") {
				assert.Equal(t, []string{"cost_in_parent"}, kinds, where)
				assert.Equal(t, "aeed4273-5dec-43f9-a8f1-548160eefd91", jsonField(t, e.Line, "subagent_of"), where)
			} else {
				assert.Empty(t, kinds, where)
			}
		default:
			assert.Empty(t, kinds, where)
		}
	}
}

// checkTokens compares the tokens summed in Loki by model with what the
// files state: the stream-json capture's result (modelUsage), the final
// usage of OrbitMesh's Claude events, each transcript response once at
// its largest usage, and none for the Go sessions (no usage per line).
func (n *realNode) checkTokens(t *testing.T, url string) {
	t.Helper()
	orbit, transcripts := map[string][4]int64{}, map[string][4]int64{}
	var capture *realJournal
	for _, j := range n.journals {
		switch {
		case j.format == "orbitmesh":
			for m, v := range orbitMeshTokens(t, j) {
				addTokens(orbit, m, v)
			}
		case strings.HasPrefix(j.rel, "claude-code/stream-json/"):
			require.Nil(t, capture, "one capture")
			capture = j
		case j.format == "claude-code":
			for m, v := range transcriptTokens(t, j) {
				addTokens(transcripts, m, v)
			}
		}
	}
	require.NotNil(t, capture)
	require.NotEmpty(t, orbit)
	require.NotEmpty(t, transcripts)
	assert.Equal(t, streamJSONTokens(t, capture), n.tokenSums(t, url, realSelector+` | file="`+capture.path+`"`),
		"the capture's tokens by model: its result's modelUsage")
	assert.Equal(t, orbit, n.tokenSums(t, url, `{node="`+realNodeName+`", format="orbitmesh"}`),
		"OrbitMesh's tokens by model: its Claude events' final usage")
	assert.Equal(t, transcripts, n.tokenSums(t, url, `{node="`+realNodeName+`", format="claude-code"} | file!="`+capture.path+`"`),
		"the transcripts' tokens by model: each response once, at its largest usage")
	assert.Empty(t, n.tokenSums(t, url, `{node="`+realNodeName+`", format="go-session"}`), "Go sessions state no tokens")
}
