package claudecode

// TestCCUsageAgrees runs the community cost tool ccusage on a generated
// corpus and compares its per-session, per-model report with the truth.
//
// ccusage is pinned (20.0.24, a Rust binary shipped in an npm package)
// by tools/ccusage/package.json and package-lock.json. Install it with
//
//	npm install --prefix tools/ccusage --no-audit --no-fund --no-save
//
// as make test does (not npm ci, which refuses the lock because ccusage
// names native packages for other platforms never published at 20.0.24;
// npm must not omit optional dependencies: the native binary is one).
// Without the binary the test skips, unless CI=true, where it fails.
//
// It writes the corpus to $T/claude/projects, pins ccusage's prices to
// journalship's built-in table (pricing/default_prices.yaml) for every
// model of the corpus, the above-200k prices equal to the base ones,
// and runs
//
//	ccusage claude session --json --offline --mode calculate --timezone UTC --config $T/ccusage.json
//
// with HOME=$T, CLAUDE_CONFIG_DIR=$T/claude, in $T. Per session and per
// model, ccusage's inputTokens, outputTokens, cacheCreationTokens,
// cacheReadTokens (exactly) and cost (to float rounding) must equal the
// truth's sums over the Counted lines (inputTokens = tokens_in − cache
// write − cache read; cost = pricing.Price.CostTokens per line), after
// the differences below, each a named rule applied to the corpus lines
// it names (ccusageRules). A difference no rule explains fails the test.
//
// Differences found (ccusage 20.0.24 against the truth;
// docs/formats/claude-code.md, section 7, lists them):
//
//  1. legacy agent file — ccusage groups sessions by path, and a CLI ≤ 2.0
//     subagent file <project>/agent-<id>.jsonl is its own session
//     "agent-<id>"; journalship counts its lines in the session they name
//     (sessionId). The file's usage moves from that session to
//     "agent-<id>"; totals agree.
//  2. fork attributed to the file sorting first — ccusage dedupes
//     responses globally by (message.id, requestId) and keeps the first
//     copy it reads, reading files in path order. A --fork-session
//     transcript starts with a byte-identical copy of the original's
//     lines; journalship counts them in the original session only
//     (session_id_mismatch lines count nothing). When the fork's file
//     sorts before the original's (the generator makes it so), ccusage
//     reports the copied responses under the fork; totals agree.
//  3. null-field byte scan — ccusage drops any usage line containing
//     "<key>":null for key in id, cwd, model, speed, costUSD, version,
//     sessionId, requestId, isApiErrorMessage, cache_read_input_tokens,
//     cache_creation_input_tokens, anywhere in the line (a tool input
//     {"model":null} included). journalship counts the line; ccusage
//     loses what it ships (the rule requires it to be the last line of
//     its response, so nothing replaces it in ccusage's dedupe).
//  4. model-less schema-invalid line — an assistant line without
//     message.model is schema-invalid for journalship (not counted);
//     ccusage counts its usage in the session's totals under no model,
//     at no cost.
//  5. id-less schema-invalid line — an assistant line without message.id
//     is schema-invalid for journalship; ccusage counts it in full under
//     its model (it dedupes only lines with an id).
//  6. replay under another requestId — a /btw side question's subagent
//     file (and, in old CLIs, sidechain lines of the main file) copies
//     the parent's response lines with their message.id under a new
//     requestId. journalship counts such a replay nothing
//     (response_replayed). ccusage 20.0.24 dedupes on (message.id,
//     requestId) only and counts the replay again, at its largest line.
//     docs/research/claude-code-and-go-session.md §3 expected ccusage to dedupe these on
//     message.id alone when one copy is a sidechain (#913, from reading
//     the source); the pinned binary does not (verified: the same
//     response with isSidechain true under another requestId, in the
//     same file or under subagents/, is counted twice).
//  7. one-hour cache writes — ccusage prices them at 2 × the input price
//     (hard-coded), journalship at the table's cache_write_1h price. The
//     built-in table's 1-hour price is 2 × input for every Claude model,
//     so the rule moves $0 today; it is kept so that a table change shows
//     as explained, not as a mystery.
//  8. stream-json capture — ccusage reads a line only with a timestamp,
//     and no stream-json line has one: a capture saved among the
//     transcripts counts nothing for ccusage (verified on the real
//     2.1.44 capture: nothing, and everything once assistant lines get a
//     timestamp). journalship counts each response once at its final
//     usage (message_start and message_delta) and the helper model's
//     usage from the result's modelUsage. ccusage undercounts the whole
//     capture.
//
// Agreements by different routes (no rule needed): streaming snapshots of
// CLIs before 2.1.97 (ccusage keeps the line with the largest total,
// journalship ships per-counter growth: both count each response at its
// largest usage), a response whose last snapshot fell (usage_regression),
// a line written twice (uuid_repeat, same requestId), usage embedded in
// agent_progress lines (ccusage's session report ignores lines without a
// top-level message.usage), <synthetic> lines (zero usage; no model), a
// schema-invalid line with a string output_tokens (ccusage cannot parse
// it; journalship does not count it, and the response's other lines
// count the same for both), torn and corrupt lines.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/journalship/journalship/internal/sample"
	"github.com/journalship/journalship/internal/sample/ccusagetest"
	"github.com/journalship/journalship/pricing"
)

// ccusageSessions is the corpus size of the comparison: the fault
// sessions and enough clean ones to cover every era and feature.
const ccusageSessions = 40

func TestCCUsageAgrees(t *testing.T) {
	bin := ccusagetest.Binary(t)
	cfg := DefaultConfig()
	cfg.Sessions = ccusageSessions
	applied := compareWithCCUsage(t, bin, cfg)
	ccusagetest.RequireApplied(t, ccusageRules, applied)
	// Other seeds, with and without the fault sessions: whatever applies
	// must explain every difference.
	for seed := int64(2); seed <= 5; seed++ {
		t.Run(fmt.Sprintf("seed%d", seed), func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Seed, cfg.Sessions, cfg.Faults = seed, 12, seed%2 == 0
			compareWithCCUsage(t, bin, cfg)
		})
	}
}

// compareWithCCUsage generates cfg's corpus, runs ccusage on it and
// compares its report with the truth after the rules; it returns how
// many lines each rule applied to.
func compareWithCCUsage(t *testing.T, bin string, cfg Config) map[string]int {
	t.Helper()
	c, err := Generate(cfg)
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, c.WriteTo(filepath.Join(dir, "claude", "projects")))
	prices := corpusPrices(t, c)
	writeCCUsageConfig(t, filepath.Join(dir, "ccusage.json"), prices)
	got := runCCUsage(t, bin, dir)

	want := truthReport(c, prices)
	applied := ccusagetest.ApplyRules(t, c, ccusageRules, prices, want)
	ccusagetest.Compare(t, want, got)
	return applied
}

// corpusPrices are the built-in table's prices of every model an
// assistant line of the corpus names or a line counts under.
func corpusPrices(t *testing.T, c *sample.Corpus) map[string]pricing.Price {
	t.Helper()
	table := pricing.Default()
	out := map[string]pricing.Price{}
	for _, f := range c.Files {
		for _, l := range f.Lines {
			if !l.Counted && (l.Type != TypeAssistant || l.Model == "") {
				continue
			}
			p, ok := table.Lookup("", l.Model)
			require.True(t, ok, "model %s is not priced", l.Model)
			out[l.Model] = p
		}
	}
	return out
}

// writeCCUsageConfig pins ccusage's prices (USD per token) to the table's,
// the above-200k tiers equal to the base prices (no tiering).
func writeCCUsageConfig(t *testing.T, path string, prices map[string]pricing.Price) {
	t.Helper()
	overrides := map[string]any{}
	for m, p := range prices {
		overrides[m] = map[string]float64{
			"inputCostPerToken":                          p.InputPerMillion / 1e6,
			"outputCostPerToken":                         p.OutputPerMillion / 1e6,
			"cacheCreationInputTokenCost":                p.CacheWritePerMillion / 1e6,
			"cacheReadInputTokenCost":                    p.CacheReadPerMillion / 1e6,
			"inputCostPerTokenAbove200kTokens":           p.InputPerMillion / 1e6,
			"outputCostPerTokenAbove200kTokens":          p.OutputPerMillion / 1e6,
			"cacheCreationInputTokenCostAbove200kTokens": p.CacheWritePerMillion / 1e6,
			"cacheReadInputTokenCostAbove200kTokens":     p.CacheReadPerMillion / 1e6,
		}
	}
	data, err := json.MarshalIndent(map[string]any{"claude": map[string]any{"defaults": map[string]any{"pricingOverrides": overrides}}}, "", "  ")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, data, 0o644))
}

// ccReport is ccusage's `claude session --json` output (the fields
// compared).
type ccReport struct {
	Sessions []struct {
		SessionID string `json:"sessionId"`
		ccTokens
		TotalCost       float64 `json:"totalCost"`
		ModelBreakdowns []struct {
			ModelName string `json:"modelName"`
			ccTokens
			Cost float64 `json:"cost"`
		} `json:"modelBreakdowns"`
	} `json:"sessions"`
	Totals struct {
		ccTokens
		TotalCost float64 `json:"totalCost"`
	} `json:"totals"`
}

type ccTokens struct {
	InputTokens         int64 `json:"inputTokens"`
	OutputTokens        int64 `json:"outputTokens"`
	CacheCreationTokens int64 `json:"cacheCreationTokens"`
	CacheReadTokens     int64 `json:"cacheReadTokens"`
}

func runCCUsage(t *testing.T, bin, dir string) report {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "claude", "session", "--json", "--offline", "--mode", "calculate",
		"--timezone", "UTC", "--config", filepath.Join(dir, "ccusage.json"))
	cmd.Dir = dir
	var env []string
	for _, e := range os.Environ() {
		if k, _, _ := strings.Cut(e, "="); k != "HOME" && k != "CLAUDE_CONFIG_DIR" && k != "XDG_CONFIG_HOME" {
			env = append(env, e)
		}
	}
	cmd.Env = append(env, "HOME="+dir, "CLAUDE_CONFIG_DIR="+filepath.Join(dir, "claude"), "NO_COLOR=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), "ccusage: %s", stderr.String())
	var cr ccReport
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &cr), "ccusage output: %.2000s", stdout.String())
	out := ccusagetest.NewReport[ccTokens]()
	for _, s := range cr.Sessions {
		out.Sessions[s.SessionID] = &sums{Tok: s.ccTokens, Cost: s.TotalCost}
		for _, b := range s.ModelBreakdowns {
			out.Models[key{Session: s.SessionID, Model: b.ModelName}] = &sums{Tok: b.ccTokens, Cost: b.Cost}
		}
	}
	out.Totals = sums{Tok: cr.Totals.ccTokens, Cost: cr.Totals.TotalCost}
	return out
}

// The report's types, over ccusage's counters of this report.
type (
	report = ccusagetest.Report[ccTokens]
	sums   = ccusagetest.Sums[ccTokens]
	key    = ccusagetest.Key
	delta  = ccusagetest.Delta[ccTokens]
)

// Plus and Neg make ccTokens a ccusagetest.Tokens.
func (a ccTokens) Plus(b ccTokens) ccTokens {
	return ccTokens{a.InputTokens + b.InputTokens, a.OutputTokens + b.OutputTokens, a.CacheCreationTokens + b.CacheCreationTokens,
		a.CacheReadTokens + b.CacheReadTokens}
}

func (a ccTokens) Neg() ccTokens {
	return ccTokens{-a.InputTokens, -a.OutputTokens, -a.CacheCreationTokens, -a.CacheReadTokens}
}

// truthReport sums the truth's Counted lines by the file's session and
// the line's model.
func truthReport(c *sample.Corpus, prices map[string]pricing.Price) report {
	r := ccusagetest.NewReport[ccTokens]()
	for _, f := range c.Files {
		for _, l := range f.Lines {
			if l.Counted {
				r.Add(truthDelta(f.SessionID, l, prices))
			}
		}
	}
	return r
}

// truthDelta is what a Counted line ships, in ccusage's terms.
func truthDelta(session string, l sample.Line, prices map[string]pricing.Price) delta {
	tk := pricing.Tokens{Uncached: l.PromptTokens - l.CacheReadTokens - l.CacheWriteTokens, Output: l.CompletionTokens,
		CacheRead: l.CacheReadTokens, CacheWrite: l.CacheWriteTokens, CacheWrite1h: l.CacheWrite1hTokens}
	return delta{Session: session, Model: l.Model, Cost: prices[l.Model].CostTokens(tk),
		Tok: ccTokens{tk.Uncached, tk.Output, tk.CacheWrite, tk.CacheRead}}
}

// ccRule is one documented difference between ccusage and the truth.
type ccRule = ccusagetest.Rule[ccTokens]

var legacyRel = regexp.MustCompile(`^[^/]+/agent-([0-9a-z]+)\.jsonl$`)

// nullFields are the keys whose null value anywhere in a line makes
// ccusage drop it.
var nullFields = []string{"id", "cwd", "model", "speed", "costUSD", "version", "sessionId", "requestId",
	"isApiErrorMessage", "cache_read_input_tokens", "cache_creation_input_tokens"}

// ccusageRules are the documented differences (see the comment at the top
// of the file), in its order.
var ccusageRules = []ccRule{
	{Name: "legacy agent file is its own session", Apply: func(_ *testing.T, c *sample.Corpus, fi, li int, prices map[string]pricing.Price) ([]delta, bool) {
		f := c.Files[fi]
		l := f.Lines[li]
		m := legacyRel.FindStringSubmatch(f.Rel)
		if m == nil || !l.Counted {
			return nil, false
		}
		d := truthDelta(f.SessionID, l, prices)
		moved := d
		moved.Session = "agent-" + m[1]
		return []delta{d.Neg(), moved}, true
	}},
	{Name: "fork copies counted under the fork", Apply: func(t *testing.T, c *sample.Corpus, fi, li int, prices map[string]pricing.Price) ([]delta, bool) {
		f := c.Files[fi]
		l := f.Lines[li]
		if f.AgentID != "" || !slices.Contains(l.Expect, AnnSessionIDMismatch) || l.Type != TypeAssistant {
			return nil, false
		}
		orig, ol := originalOf(t, c, l)
		if !ol.Counted || f.Rel > orig.Rel {
			return nil, false // ccusage keeps the original's copy, as journalship
		}
		d := truthDelta(orig.SessionID, ol, prices)
		moved := d
		moved.Session = f.SessionID
		return []delta{d.Neg(), moved}, true
	}},
	{Name: "null-field byte scan drops the line", Apply: func(t *testing.T, c *sample.Corpus, fi, li int, prices map[string]pricing.Price) ([]delta, bool) {
		f := c.Files[fi]
		l := f.Lines[li]
		if !strings.Contains(l.Text, `"usage":{`) || !hasNullField(l.Text) {
			return nil, false
		}
		if !l.Counted {
			t.Fatalf("rule precondition: %s line %d holds a null field but ships nothing; the rule does not model that", f.Rel, li)
		}
		id := messageID(l.Text)
		for _, later := range f.Lines[li+1:] {
			if later.Type == TypeAssistant && messageID(later.Text) == id {
				t.Fatalf("rule precondition: %s line %d is not the last line of response %s", f.Rel, li, id)
			}
		}
		return []delta{truthDelta(f.SessionID, l, prices).Neg()}, true
	}},
	{Name: "model-less line counted under no model", Apply: func(t *testing.T, c *sample.Corpus, fi, li int, _ map[string]pricing.Price) ([]delta, bool) {
		f := c.Files[fi]
		l := f.Lines[li]
		if l.Type != TypeAssistant || l.Valid || l.Corrupt {
			return nil, false
		}
		m, ok := ccusageMessage(l.Text)
		if !ok || m.Model != nil {
			return nil, false
		}
		requireUniqueID(t, c, m.ID)
		return []delta{{Session: f.SessionID, Tok: m.Usage.tokens()}}, true
	}},
	{Name: "id-less line counted in full", Apply: func(t *testing.T, c *sample.Corpus, fi, li int, prices map[string]pricing.Price) ([]delta, bool) {
		f := c.Files[fi]
		l := f.Lines[li]
		if l.Type != TypeAssistant || l.Valid || l.Corrupt {
			return nil, false
		}
		m, ok := ccusageMessage(l.Text)
		if !ok || m.ID != nil || m.Model == nil {
			return nil, false
		}
		p, ok := prices[*m.Model]
		require.True(t, ok, "%s is not priced", *m.Model)
		return []delta{{Session: f.SessionID, Model: *m.Model, Tok: m.Usage.tokens(), Cost: m.Usage.ccusageCost(p)}}, true
	}},
	{Name: "replay under another requestId counted", Apply: func(t *testing.T, c *sample.Corpus, fi, li int, prices map[string]pricing.Price) ([]delta, bool) {
		f := c.Files[fi]
		l := f.Lines[li]
		if !slices.Contains(l.Expect, AnnResponseReplayed) {
			return nil, false
		}
		// ccusage keeps one line per (message.id, requestId): the largest
		// total, the first on a tie.
		m, ok := ccusageMessage(l.Text)
		require.True(t, ok, "a replay ccusage cannot read: %s", l.Text)
		k := replayKey(l.Text)
		for _, o := range f.Lines {
			if o.Offset == l.Offset || !slices.Contains(o.Expect, AnnResponseReplayed) || replayKey(o.Text) != k {
				continue
			}
			om, _ := ccusageMessage(o.Text)
			if ot, lt := om.Usage.tokens().total(), m.Usage.tokens().total(); ot > lt || ot == lt && o.Offset < l.Offset {
				return nil, false
			}
		}
		p, ok := prices[*m.Model]
		require.True(t, ok, "%s is not priced", *m.Model)
		return []delta{{Session: f.SessionID, Model: *m.Model, Tok: m.Usage.tokens(), Cost: m.Usage.ccusageCost(p)}}, true
	}},
	{Name: "one-hour cache writes at 2 x input", Apply: func(_ *testing.T, c *sample.Corpus, fi, li int, prices map[string]pricing.Price) ([]delta, bool) {
		f := c.Files[fi]
		l := f.Lines[li]
		if !l.Counted || l.CacheWrite1hTokens == 0 {
			return nil, false
		}
		p := prices[l.Model]
		ours := pricing.Price{CacheWritePerMillion: p.CacheWritePerMillion, HasCacheWrite: true,
			CacheWrite1hPerMillion: p.CacheWrite1hPerMillion, HasCacheWrite1h: p.HasCacheWrite1h}.
			CostTokens(pricing.Tokens{CacheWrite: l.CacheWrite1hTokens, CacheWrite1h: l.CacheWrite1hTokens})
		theirs := float64(l.CacheWrite1hTokens) * 2 * p.InputPerMillion / 1e6
		return []delta{{Session: f.SessionID, Model: l.Model, Cost: theirs - ours}}, true
	}},
	{Name: "stream-json capture counts nothing", Apply: func(_ *testing.T, c *sample.Corpus, fi, li int, prices map[string]pricing.Price) ([]delta, bool) {
		f := c.Files[fi]
		l := f.Lines[li]
		if !isCapture(f) || !l.Counted {
			return nil, false
		}
		return []delta{truthDelta(f.SessionID, l, prices).Neg()}, true
	}},
}

// originalOf finds the line a fork copied: the same bytes in the main
// transcript of the session the copy names.
func originalOf(t *testing.T, c *sample.Corpus, copyLine sample.Line) (sample.File, sample.Line) {
	t.Helper()
	var env struct {
		SessionID string `json:"sessionId"`
	}
	require.NoError(t, json.Unmarshal([]byte(copyLine.Text), &env))
	for _, f := range c.Files {
		if f.SessionID != env.SessionID || f.AgentID != "" {
			continue
		}
		for _, l := range f.Lines {
			if l.Text == copyLine.Text {
				return f, l
			}
		}
	}
	t.Fatalf("no original of the fork's line %.120s", copyLine.Text)
	return sample.File{}, sample.Line{}
}

// replayKey is ccusage's dedupe key of a line: message.id and requestId.
func replayKey(text string) [2]string {
	var line struct {
		RequestID string `json:"requestId"`
		Message   struct {
			ID string `json:"id"`
		} `json:"message"`
	}
	_ = json.Unmarshal([]byte(text), &line)
	return [2]string{line.Message.ID, line.RequestID}
}

func (t ccTokens) total() int64 {
	return t.InputTokens + t.OutputTokens + t.CacheCreationTokens + t.CacheReadTokens
}

// hasNullField reports whether ccusage's byte scan drops the line.
func hasNullField(text string) bool {
	for _, k := range nullFields {
		if strings.Contains(text, `"`+k+`":null`) {
			return true
		}
	}
	return false
}

func messageID(text string) string {
	m, _ := ccusageMessage(text)
	if m.ID == nil {
		return ""
	}
	return *m.ID
}

// ccMessage is an assistant line's message as ccusage parses it.
type ccMessage struct {
	ID    *string `json:"id"`
	Model *string `json:"model"`
	Usage ccUsage `json:"usage"`
}

type ccUsage struct {
	Input         int64 `json:"input_tokens"`
	Output        int64 `json:"output_tokens"`
	CacheCreation int64 `json:"cache_creation_input_tokens"`
	CacheRead     int64 `json:"cache_read_input_tokens"`
	Split         *struct {
		FiveMin int64 `json:"ephemeral_5m_input_tokens"`
		OneHour int64 `json:"ephemeral_1h_input_tokens"`
	} `json:"cache_creation"`
}

// ccusageMessage parses the line's message as ccusage does; false when
// ccusage could not (a string token count, no message).
func ccusageMessage(text string) (ccMessage, bool) {
	var line struct {
		Message *ccMessage `json:"message"`
	}
	if err := json.Unmarshal([]byte(text), &line); err != nil || line.Message == nil {
		return ccMessage{}, false
	}
	return *line.Message, true
}

// tokens are the usage in ccusage's counters (cache writes: the split's
// sum when present).
func (u ccUsage) tokens() ccTokens {
	cw := u.CacheCreation
	if u.Split != nil {
		cw = u.Split.FiveMin + u.Split.OneHour
	}
	return ccTokens{u.Input, u.Output, cw, u.CacheRead}
}

// ccusageCost is ccusage's price of the usage (calculate mode, no
// tiers): one-hour writes at 2 × input.
func (u ccUsage) ccusageCost(p pricing.Price) float64 {
	five, hour := u.CacheCreation, int64(0)
	if u.Split != nil {
		five, hour = u.Split.FiveMin, u.Split.OneHour
	}
	return (float64(u.Input)*p.InputPerMillion + float64(u.Output)*p.OutputPerMillion + float64(five)*p.CacheWritePerMillion +
		float64(hour)*2*p.InputPerMillion + float64(u.CacheRead)*p.CacheReadPerMillion) / 1e6
}

// requireUniqueID fails when another line carries the message id: the
// model-less rule assumes ccusage's dedupe leaves the line alone.
func requireUniqueID(t *testing.T, c *sample.Corpus, id *string) {
	t.Helper()
	if id == nil {
		return
	}
	n := 0
	for _, f := range c.Files {
		for _, l := range f.Lines {
			if strings.Contains(l.Text, `"id":"`+*id+`"`) {
				n++
			}
		}
	}
	require.Equal(t, 1, n, "rule precondition: message %s is on one line only", *id)
}
