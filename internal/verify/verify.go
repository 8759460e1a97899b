// Package verify checks, against a real Loki, that a generated corpus
// landed as journalship promises: every complete line once and byte for
// byte, with its job/session/pod/agent/model metadata and exactly the
// annotations the corpus's independent truth expects, and token sums by
// model equal to the corpus's. The output package's tests and the
// end-to-end tests through the plugin .so share it.
package verify

import (
	"cmp"
	"context"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/journalship/journalship/internal/lokiquery"
	"github.com/journalship/journalship/internal/sample"
	"github.com/journalship/journalship/internal/sample/cortex"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Selector is the stream selector every journalship entry matches by
// default.
const Selector = `{service_name="agent-sessions"}`

// Landed runs every check for corpus c written under root, into a Loki
// holding nothing else. node is the expected node label.
func Landed(t testing.TB, lokiURL string, c *sample.Corpus, root, node string) {
	t.Helper()
	landed(t, lokiURL, c, root, node, false)
	Tokens(t, &lokiquery.Client{URL: lokiURL}, c, time.Now().Add(time.Minute))
}

// LandedRestamped is Landed for a Loki with its stock window: a line
// too far behind its stream's newest entry (a corpus spanning more than
// an hour) may be shipped re-stamped, annotated timestamp_rewritten with
// its own time in original_timestamp; everything else is as in Landed.
func LandedRestamped(t testing.TB, lokiURL string, c *sample.Corpus, root, node string) {
	t.Helper()
	landed(t, lokiURL, c, root, node, true)
	Tokens(t, &lokiquery.Client{URL: lokiURL}, c, time.Now().Add(time.Minute))
}

// LandedAtLeastOnce is LandedRestamped without the token sums, for a test
// in which Loki may hold some lines twice (a process killed between
// Loki's answer and its ledger commit): every line is there as the truth
// has it, and the test bounds the duplicates itself.
func LandedAtLeastOnce(t testing.TB, lokiURL string, c *sample.Corpus, root, node string) {
	t.Helper()
	landed(t, lokiURL, c, root, node, true)
}

func landed(t testing.TB, lokiURL string, c *sample.Corpus, root, node string, restamped bool) {
	t.Helper()
	q := &lokiquery.Client{URL: lokiURL}
	from, to := time.Now().Add(-6*time.Hour), time.Now().Add(time.Minute)
	want := c.Lines()
	got, err := q.WaitFor(context.Background(), Selector, from, to, want, 30*time.Second)
	require.NoError(t, err)
	// At least once: a retried flush may store a line twice, but every
	// copy must be the same line and nothing may be there that the corpus
	// does not have.
	byPlace := map[string]lokiquery.Entry{}
	for _, e := range got {
		place := e.Metadata["file"] + "@" + e.Metadata["byte_offset"]
		if prev, dup := byPlace[place]; dup {
			require.Equal(t, prev.Line, e.Line, "two different lines at %s", place)
		}
		byPlace[place] = e
	}
	require.Equal(t, want, len(byPlace), "distinct lines in Loki (%d entries with duplicates)", len(got))
	c = c.Settled(owners(c, root, byPlace))
	for _, f := range c.Files {
		path := filepath.Join(root, f.Rel)
		for _, l := range f.Lines {
			e, ok := byPlace[path+"@"+strconv.FormatInt(l.Offset, 10)]
			require.True(t, ok, "%s offset %d is in Loki", f.Rel, l.Offset)
			if restamped {
				e = unstamped(t, e)
			}
			line(t, f, l, e, node)
		}
	}
	// An operator finds a line by its file and byte offset in LogQL.
	if len(c.Files) > 0 && len(c.Files[0].Lines) > 1 {
		f, l := c.Files[0], c.Files[0].Lines[1]
		one, err := q.QueryRange(context.Background(), Selector+` | file="`+filepath.Join(root, f.Rel)+`" | byte_offset="`+strconv.FormatInt(l.Offset, 10)+`"`, from, to, 10, "forward")
		require.NoError(t, err)
		require.NotEmpty(t, one, "a LogQL filter on file and byte_offset finds the line")
		assert.Equal(t, l.Text, one[0].Line)
	}
}

// owners tells, for each response the corpus bills in several journals
// (sample.Line.Bill), which journal counted it: the one whose line of it
// Loki holds without counted_elsewhere.
func owners(c *sample.Corpus, root string, byPlace map[string]lokiquery.Entry) map[string]string {
	out := map[string]string{}
	for _, f := range c.Files {
		for _, l := range f.Lines {
			if l.Bill == "" {
				continue
			}
			e, ok := byPlace[filepath.Join(root, f.Rel)+"@"+strconv.FormatInt(l.Offset, 10)]
			if ok && !slices.Contains(strings.Split(e.Metadata["annotations"], ","), sample.AnnCountedElsewhere) {
				out[l.Bill] = f.Rel
			}
		}
	}
	return out
}

func line(t testing.TB, f sample.File, l sample.Line, e lokiquery.Entry, node string) {
	t.Helper()
	where := f.Rel + " offset " + strconv.FormatInt(l.Offset, 10)
	assert.Equal(t, l.Text, e.Line, "%s: byte-exact line", where)
	assert.Equal(t, f.JobID, e.Metadata["job_id"], where)
	assert.Equal(t, f.SessionID, e.Metadata["session_id"], where)
	assert.Equal(t, f.Pod, e.Metadata["pod"], where)
	if !slices.Contains(Expected(l), "agent_id_mismatch") { // else the line's own
		assert.Equal(t, f.AgentID, e.Metadata["agent_id"], where)
	}
	if run := cmp.Or(l.RunID, f.RunID); run != "" {
		assert.Equal(t, run, e.Metadata["run_id"], where)
	}
	assert.Equal(t, node, e.Stream["node"], where)
	assert.Equal(t, f.Format, e.Stream["format"], where)
	assert.Equal(t, l.State, e.Metadata["state"], "%s: derived state", where)
	assert.Equal(t, Expected(l), Shipped(e.Metadata, f.Format == cortex.FormatName), "%s: %s", where, l.Text)
	assert.Equal(t, l.Model, e.Metadata["model"], "%s: model", where)
	tokens(t, l, e.Metadata, where)
	cost(t, l, e.Metadata, where)
	for _, x := range l.Expect {
		kind, detail, ok := strings.Cut(x, ":")
		if !ok {
			continue
		}
		if kind == "seq_gap" && f.Format == cortex.FormatName {
			// The Cortex Plane truth writes a one-seq gap as "A-A".
			if a, b, _ := strings.Cut(detail, "-"); a == b {
				detail = a
			}
		}
		assert.Equal(t, detail, e.Metadata[kind], "%s: %s detail", where, kind)
	}
}

// tokens checks the shared token keys: present exactly on the lines whose
// tokens count, with the truth's values (cache keys only when non-zero).
func tokens(t testing.TB, l sample.Line, md map[string]string, where string) {
	t.Helper()
	if !l.Counted {
		assert.Empty(t, md["tokens_in"], "%s: no tokens", where)
		return
	}
	assert.Equal(t, strconv.FormatInt(l.PromptTokens, 10), md["tokens_in"], where)
	assert.Equal(t, strconv.FormatInt(l.CompletionTokens, 10), md["tokens_out"], where)
	for key, n := range map[string]int64{"tokens_cache_read": l.CacheReadTokens, "tokens_cache_write": l.CacheWriteTokens} {
		want := ""
		if n != 0 {
			want = strconv.FormatInt(n, 10)
		}
		assert.Equal(t, want, md[key], "%s: %s", where, key)
	}
}

// Expected maps a line's truth to the annotation kinds shipped, sorted.
func Expected(l sample.Line) []string {
	var out []string
	for _, e := range l.Expect {
		kind, _, _ := strings.Cut(e, ":")
		out = append(out, kind)
	}
	sort.Strings(out)
	return out
}

// Shipped reads the annotation kinds of an entry, sorted, leaving out
// timestamp_fallback (a detail of where a torn line is placed), the
// timestamp_rewritten of such a line (placed by the time of the line
// before it in its chunk, it may land over an hour behind its stream's
// newest entry, which Loki refuses: the pipeline re-sends it at the
// current time) and, with foldRepeat, counting seq_repeat as
// seq_regression (the Cortex Plane corpus does not tell them apart).
func Shipped(md map[string]string, foldRepeat bool) []string {
	var out []string
	list := md["annotations"]
	fallback := strings.Contains(","+list+",", ",timestamp_fallback,")
	for _, a := range strings.Split(list, ",") {
		switch {
		case a == "" || a == "timestamp_fallback" || a == "timestamp_rewritten" && fallback:
		case a == "seq_repeat" && foldRepeat:
			out = append(out, "seq_regression")
		default:
			out = append(out, a)
		}
	}
	sort.Strings(out)
	return out
}

// Tokens checks the tokens by model, summed by LogQL over the shared
// keys of every format (tokens_in, tokens_out, tokens_cache_*), against
// the corpus.
func Tokens(t testing.TB, q *lokiquery.Client, c *sample.Corpus, at time.Time) {
	t.Helper()
	sums := func(key string) map[string]int64 {
		samples, err := q.Instant(context.Background(), `sum by (model) (sum_over_time({service_name="agent-sessions"} | integrity="valid" | `+key+`!="" | unwrap `+key+` [6h]))`, at)
		require.NoError(t, err)
		got := map[string]int64{}
		for _, s := range samples {
			got[s.Metric["model"]] = int64(s.Value)
		}
		return got
	}
	for i, key := range []string{"tokens_in", "tokens_out"} {
		want := map[string]int64{}
		for m, v := range c.TokensByModel() {
			want[m] = v[i]
		}
		assert.Equal(t, want, sums(key), key)
	}
	for i, key := range []string{"tokens_cache_read", "tokens_cache_write"} {
		want := map[string]int64{}
		for m, v := range c.CacheTokensByModel() {
			if v[i] != 0 {
				want[m] = v[i]
			}
		}
		assert.Equal(t, want, sums(key), key)
	}
}

// builtInPrices are the built-in price table's entries for the sample
// generators' models (USD per million tokens: input, output, cache read,
// cache write), written out here from the providers' list prices rather
// than read from the table.
// cwrite1h is the one-hour cache write price (Anthropic: 2x input; the
// others have none and charge such writes like any other).
var builtInPrices = map[string]struct {
	entry                            string
	in, out, cread, cwrite, cwrite1h float64
}{
	"claude-sonnet-4-5-20250929": {"claude-sonnet-4-5", 3, 15, 0.3, 3.75, 6},
	"claude-sonnet-4-5":          {"claude-sonnet-4-5", 3, 15, 0.3, 3.75, 6},
	"claude-sonnet-4-6":          {"claude-sonnet-4-6", 3, 15, 0.3, 3.75, 6},
	"claude-opus-4-6":            {"claude-opus-4-6", 5, 25, 0.5, 6.25, 10},
	"claude-haiku-4-5":           {"claude-haiku-4-5", 1, 5, 0.1, 1.25, 2},
	"claude-haiku-4-5-20251001":  {"claude-haiku-4-5", 1, 5, 0.1, 1.25, 2},
	"gpt-4.1-2025-04-14":         {"gpt-4.1", 2, 8, 0.5, 2, 2},
	"gpt-4.1":                    {"gpt-4.1", 2, 8, 0.5, 2, 2},
	"gpt-4.1-mini":               {"gpt-4.1-mini", 0.4, 1.6, 0.1, 0.4, 0.4},
	"gemini-2.5-pro":             {"gemini-2.5-pro", 1.25, 10, 0.125, 1.25, 1.25},
	// OpenAI's Codex rate card: the API prices; no cache-write surcharge.
	"gpt-5":             {"gpt-5", 1.25, 10, 0.125, 1.25, 1.25},
	"gpt-5-codex":       {"gpt-5", 1.25, 10, 0.125, 1.25, 1.25},
	"gpt-5.1-codex-max": {"gpt-5", 1.25, 10, 0.125, 1.25, 1.25},
	"gpt-5.3-codex":     {"gpt-5.2", 1.75, 14, 0.175, 1.75, 1.75},
}

// cost checks cost_usd and cost_model: present exactly on the lines whose
// tokens count, each part of the prompt at its price.
func cost(t testing.TB, l sample.Line, md map[string]string, where string) {
	t.Helper()
	if !l.Counted {
		assert.Empty(t, md["cost_usd"], "%s: no cost", where)
		return
	}
	p, priced := builtInPrices[l.Model]
	if !assert.True(t, priced, "%s: model %q has no expected price: add it to builtInPrices", where, l.Model) {
		return
	}
	uncached := max(0, l.PromptTokens-l.CacheReadTokens-l.CacheWriteTokens)
	want := (float64(uncached)*p.in + float64(l.CompletionTokens)*p.out + float64(l.CacheReadTokens)*p.cread +
		float64(l.CacheWriteTokens-l.CacheWrite1hTokens)*p.cwrite + float64(l.CacheWrite1hTokens)*p.cwrite1h) / 1e6
	got, err := strconv.ParseFloat(md["cost_usd"], 64)
	if assert.NoError(t, err, "%s: cost_usd %q", where, md["cost_usd"]) {
		assert.InDelta(t, want, got, 1e-10, "%s: cost_usd", where)
	}
	assert.Equal(t, p.entry, md["cost_model"], where)
}

// unstamped removes timestamp_rewritten from a re-stamped entry's
// annotations, checking that it kept its own time.
func unstamped(t testing.TB, e lokiquery.Entry) lokiquery.Entry {
	kinds := strings.Split(e.Metadata["annotations"], ",")
	i := slices.Index(kinds, "timestamp_rewritten")
	if i < 0 {
		return e
	}
	assert.NotEmpty(t, e.Metadata["original_timestamp"], "a re-stamped entry keeps its own time")
	md := maps.Clone(e.Metadata)
	md["annotations"] = strings.Join(slices.Delete(kinds, i, i+1), ",")
	if md["annotations"] == "" {
		delete(md, "annotations")
	}
	delete(md, "original_timestamp")
	e.Metadata = md
	return e
}
