// Package verify checks, against a real Loki, that a generated corpus
// landed as journalship promises: every complete line once and byte for
// byte, with its job/session/pod/agent/model metadata and exactly the
// annotations the corpus's independent truth expects, and token sums by
// model equal to the corpus's. The output package's tests and the
// end-to-end tests through the plugin .so share it.
package verify

import (
	"context"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/journalship/journalship/internal/lokiquery"
	"github.com/journalship/journalship/internal/sample"
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
	q := &lokiquery.Client{URL: lokiURL}
	from, to := time.Now().Add(-6*time.Hour), time.Now().Add(time.Minute)
	want := 0
	for _, f := range c.Files {
		want += len(f.Lines)
	}
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
	for _, f := range c.Files {
		path := filepath.Join(root, f.Rel)
		for _, l := range f.Lines {
			e, ok := byPlace[path+"@"+strconv.FormatInt(l.Offset, 10)]
			require.True(t, ok, "%s offset %d is in Loki", f.Rel, l.Offset)
			line(t, f, l, e, node)
		}
	}
	Tokens(t, q, c, to)
	// An operator finds a line by its file and byte offset in LogQL.
	if len(c.Files) > 0 && len(c.Files[0].Lines) > 1 {
		f, l := c.Files[0], c.Files[0].Lines[1]
		one, err := q.QueryRange(context.Background(), Selector+` | file="`+filepath.Join(root, f.Rel)+`" | byte_offset="`+strconv.FormatInt(l.Offset, 10)+`"`, from, to, 10, "forward")
		require.NoError(t, err)
		require.NotEmpty(t, one, "a LogQL filter on file and byte_offset finds the line")
		assert.Equal(t, l.Text, one[0].Line)
	}
}

func line(t testing.TB, f sample.File, l sample.Line, e lokiquery.Entry, node string) {
	t.Helper()
	where := f.Rel + " offset " + strconv.FormatInt(l.Offset, 10)
	assert.Equal(t, l.Text, e.Line, "%s: byte-exact line", where)
	assert.Equal(t, f.JobID, e.Metadata["job_id"], where)
	assert.Equal(t, f.SessionID, e.Metadata["session_id"], where)
	assert.Equal(t, f.Pod, e.Metadata["pod"], where)
	assert.Equal(t, f.AgentID, e.Metadata["agent_id"], where)
	assert.Equal(t, node, e.Stream["node"], where)
	assert.Equal(t, Expected(l), Shipped(e.Metadata), "%s: %s", where, l.Text)
	if l.Type == "LLM_RESPONSE" || l.Type == "LLM_REQUEST" {
		assert.Equal(t, l.Model, e.Metadata["model"], where)
	}
	cost(t, l, e.Metadata, where)
	for _, x := range l.Expect {
		if gap, ok := strings.CutPrefix(x, "seq_gap:"); ok {
			a, b, _ := strings.Cut(gap, "-")
			if a == b {
				gap = a
			}
			assert.Equal(t, gap, e.Metadata["seq_gap"], where)
		}
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
// timestamp_fallback (a detail of where a torn line is placed) and counting
// seq_repeat as seq_regression (the corpus does not tell them apart).
func Shipped(md map[string]string) []string {
	var out []string
	for _, a := range strings.Split(md["annotations"], ",") {
		switch a {
		case "", "timestamp_fallback":
		case "seq_repeat":
			out = append(out, "seq_regression")
		default:
			out = append(out, a)
		}
	}
	sort.Strings(out)
	return out
}

// Tokens checks prompt and completion tokens by model, summed by LogQL,
// against the corpus.
func Tokens(t testing.TB, q *lokiquery.Client, c *sample.Corpus, at time.Time) {
	t.Helper()
	for dir, field := range []string{"prompt_tokens", "completion_tokens"} {
		samples, err := q.Instant(context.Background(), `sum by (model) (sum_over_time({service_name="agent-sessions", event_type="LLM_RESPONSE"} | integrity="valid" | json t="`+field+`" | unwrap t [6h]))`, at)
		require.NoError(t, err)
		got := map[string]int64{}
		for _, s := range samples {
			got[s.Metric["model"]] = int64(s.Value)
		}
		want := map[string]int64{}
		for m, v := range c.TokensByModel() {
			want[m] = v[dir]
		}
		assert.Equal(t, want, got, field)
	}
}

// builtInPrices are the built-in price table's entries for the sample's
// default models (USD per million prompt and completion tokens), written
// out here from the providers' list prices rather than read from the table.
var builtInPrices = map[string]struct {
	entry           string
	prompt, complet float64
}{
	"claude-sonnet-4-5-20250929": {"claude-sonnet-4-5", 3, 15},
	"gpt-4.1-2025-04-14":         {"gpt-4.1", 2, 8},
	"gemini-2.5-pro":             {"gemini-2.5-pro", 1.25, 10},
}

// cost checks cost_usd and cost_model: present exactly on the valid
// LLM_RESPONSE lines (whose tokens count), with the built-in table's price.
func cost(t testing.TB, l sample.Line, md map[string]string, where string) {
	t.Helper()
	p, priced := builtInPrices[l.Model]
	if l.Type != "LLM_RESPONSE" || !l.Valid || !priced {
		assert.Empty(t, md["cost_usd"], "%s: no cost", where)
		return
	}
	want := (float64(l.PromptTokens)*p.prompt + float64(l.CompletionTokens)*p.complet) / 1e6
	got, err := strconv.ParseFloat(md["cost_usd"], 64)
	if assert.NoError(t, err, "%s: cost_usd %q", where, md["cost_usd"]) {
		assert.InDelta(t, want, got, 1e-10, "%s: cost_usd", where)
	}
	assert.Equal(t, p.entry, md["cost_model"], where)
}
