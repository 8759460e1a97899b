package pricing

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"path"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"go.yaml.in/yaml/v3"
)

// Price is what one million tokens of a model cost, and the table entry the
// cost is attributed to.
//
// The cache prices are optional in the table: HasCacheRead and HasCacheWrite
// say whether the entry gives them. An entry without one charges those
// tokens at InputPerMillion (see CostUsage).
type Price struct {
	Model                string  // the table's entry name
	InputPerMillion      float64 // USD per million prompt tokens
	OutputPerMillion     float64 // USD per million completion tokens
	CacheReadPerMillion  float64 // USD per million prompt tokens read from the cache, when HasCacheRead
	CacheWritePerMillion float64 // USD per million prompt tokens written to the cache, when HasCacheWrite
	// CacheWrite1hPerMillion is the USD per million prompt tokens written
	// to a one-hour cache (Anthropic's extended TTL), when HasCacheWrite1h.
	CacheWrite1hPerMillion float64
	HasCacheRead           bool // cache_read_usd_per_million was given
	HasCacheWrite          bool // cache_write_usd_per_million was given
	HasCacheWrite1h        bool // cache_write_1h_usd_per_million was given
}

// Tokens is one response's token usage as priced: disjoint counts, except
// that CacheWrite1h is the part of CacheWrite written to a one-hour cache.
type Tokens struct {
	Uncached     int64 // prompt tokens neither read from nor written to a cache
	Output       int64
	CacheRead    int64
	CacheWrite   int64 // every cache write, one-hour ones included
	CacheWrite1h int64 // the one-hour part of CacheWrite
}

// Cost returns the dollars of prompt and completion tokens at p, with no
// cache tokens: CostUsage(prompt, completion, 0, 0).
func (p Price) Cost(prompt, completion int64) float64 {
	return p.CostUsage(prompt, completion, 0, 0)
}

// CostUsage returns the dollars of one response's token usage at p.
//
// The four counts are disjoint: in is the uncached input (prompt) tokens,
// out the output (completion) tokens, cacheRead the prompt tokens read
// from the provider's prompt cache and cacheWrite the prompt tokens written
// to it. Providers count these differently (Anthropic reports the three
// input kinds apart; OpenAI and Gemini include cached tokens in the prompt
// count), so the caller subtracts as needed before calling.
//
// in is charged at InputPerMillion and out at OutputPerMillion. cacheRead
// and cacheWrite are charged at CacheReadPerMillion and
// CacheWritePerMillion when the entry gives them, and at InputPerMillion
// otherwise: a cache price the table does not state is never taken as free
// or guessed lower than the input price.
func (p Price) CostUsage(in, out, cacheRead, cacheWrite int64) float64 {
	return p.CostTokens(Tokens{Uncached: in, Output: out, CacheRead: cacheRead, CacheWrite: cacheWrite})
}

// CostTokens returns the dollars of t at p, as CostUsage does; the
// one-hour part of the cache writes is charged at CacheWrite1hPerMillion
// when the entry gives it, else like the other cache writes. A
// CacheWrite1h outside [0, CacheWrite] is clamped into it.
func (p Price) CostTokens(t Tokens) float64 {
	long := min(max(t.CacheWrite1h, 0), max(t.CacheWrite, 0))
	return (float64(t.Uncached)*p.InputPerMillion +
		float64(t.Output)*p.OutputPerMillion +
		float64(t.CacheRead)*p.cacheReadRate() +
		float64(t.CacheWrite-long)*p.cacheWriteRate() +
		float64(long)*p.cacheWrite1hRate()) / 1e6
}

// cacheWrite1hRate is the USD per million one-hour cache-write tokens: the
// entry's one-hour price, else its cache write price (else its input
// price).
func (p Price) cacheWrite1hRate() float64 {
	if p.HasCacheWrite1h {
		return p.CacheWrite1hPerMillion
	}
	return p.cacheWriteRate()
}

// cacheReadRate is the USD per million cache-read tokens: the entry's cache
// read price, else its input price.
func (p Price) cacheReadRate() float64 {
	if p.HasCacheRead {
		return p.CacheReadPerMillion
	}
	return p.InputPerMillion
}

// cacheWriteRate is the USD per million cache-write tokens: the entry's
// cache write price, else its input price.
func (p Price) cacheWriteRate() float64 {
	if p.HasCacheWrite {
		return p.CacheWritePerMillion
	}
	return p.InputPerMillion
}

// Table is a parsed price table. It is immutable and safe to share.
type Table struct {
	base    matcher
	tenants map[string]matcher
	memo    sync.Map // lookupKey → lookupResult: globs are matched once per model
	memoLen atomic.Int32
}

// memoMax bounds the lookups remembered per table.
const memoMax = 4096

type lookupKey struct{ tenant, model string }

type lookupResult struct {
	price Price
	ok    bool
}

// Lookup returns the price of model for tenant: the tenant's own entries
// first, then the table's. ok is false when no entry covers the model.
func (t *Table) Lookup(tenant, model string) (Price, bool) {
	if t == nil {
		return Price{}, false
	}
	key := lookupKey{tenant, model}
	if r, ok := t.memo.Load(key); ok {
		return r.(lookupResult).price, r.(lookupResult).ok
	}
	p, ok := t.lookup(tenant, model)
	if t.memoLen.Load() < memoMax {
		if _, loaded := t.memo.LoadOrStore(key, lookupResult{p, ok}); !loaded {
			t.memoLen.Add(1)
		}
	}
	return p, ok
}

func (t *Table) lookup(tenant, model string) (Price, bool) {
	if m, ok := t.tenants[tenant]; ok {
		if p, ok := m.lookup(model); ok {
			return p, true
		}
	}
	return t.base.lookup(model)
}

// Models returns the entry names of the table and of every tenant, sorted.
func (t *Table) Models() []string {
	return entryNames(append([]matcher{t.base}, mapValues(t.tenants)...))
}

// ModelsFor returns the entry names a tenant's costs can be attributed to:
// the tenant's own entries and the table's, sorted.
func (t *Table) ModelsFor(tenant string) []string {
	ms := []matcher{t.base}
	if m, ok := t.tenants[tenant]; ok {
		ms = append(ms, m)
	}
	return entryNames(ms)
}

// Names reports whether the table names model for tenant: an entry's name
// (one of ModelsFor(tenant)) or an exact id an entry matches, not an id
// only a glob covers. The ids it names are a finite set, unlike those it
// prices. It does not allocate.
func (t *Table) Names(tenant, model string) bool {
	if t == nil {
		return false
	}
	if t.base.named(model) {
		return true
	}
	m, ok := t.tenants[tenant]
	return ok && m.named(model)
}

func entryNames(ms []matcher) []string {
	var out []string
	for _, m := range ms {
		for _, p := range m.exact {
			out = append(out, p.Model)
		}
		for _, g := range m.globs {
			out = append(out, g.price.Model)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func mapValues(m map[string]matcher) []matcher {
	out := make([]matcher, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

// matcher finds a model's entry: exact ids first, then the globs, the one
// with the longest literal prefix first.
type matcher struct {
	exact map[string]Price
	globs []glob
	names map[string]struct{} // the entry names
}

type glob struct {
	pattern string
	price   Price
}

// named reports whether model is an entry name or an exact id.
func (m matcher) named(model string) bool {
	_, entry := m.names[model]
	_, exact := m.exact[model]
	return entry || exact
}

func (m matcher) lookup(model string) (Price, bool) {
	if p, ok := m.exact[model]; ok {
		return p, true
	}
	for _, g := range m.globs {
		if ok, _ := path.Match(g.pattern, model); ok {
			return g.price, true
		}
	}
	return Price{}, false
}

// file is the YAML document.
type file struct {
	Models  map[string]entry `yaml:"models"`
	Tenants map[string]struct {
		Models map[string]entry `yaml:"models"`
	} `yaml:"tenants"`
}

type entry struct {
	Match      []string `yaml:"match"`
	Input      *float64 `yaml:"input_usd_per_million"`
	Output     *float64 `yaml:"output_usd_per_million"`
	CacheRead  *float64 `yaml:"cache_read_usd_per_million"`  // optional
	CacheWrite *float64 `yaml:"cache_write_usd_per_million"` // optional
	// CacheWrite1h is optional; without it one-hour writes cost what
	// cache_write_usd_per_million says.
	CacheWrite1h *float64 `yaml:"cache_write_1h_usd_per_million"`
}

// Parse reads a price table strictly: unknown keys, missing input or output
// prices, negative, NaN or infinite prices (cache prices included), bad
// globs and a model id claimed by two entries are errors.
func Parse(data []byte) (*Table, error) {
	var f file
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		return nil, err
	}
	if len(f.Models) == 0 {
		return nil, errNoModels
	}
	base, err := build(f.Models)
	if err != nil {
		return nil, err
	}
	t := &Table{base: base, tenants: map[string]matcher{}}
	for name, tn := range f.Tenants {
		if name == "" {
			return nil, errors.New("a tenant has an empty name")
		}
		if t.tenants[name], err = build(tn.Models); err != nil {
			return nil, fmt.Errorf("tenant %q: %w", name, err)
		}
	}
	return t, nil
}

func build(entries map[string]entry) (matcher, error) {
	m := matcher{exact: map[string]Price{}, names: map[string]struct{}{}}
	claimed := map[string]string{}
	for _, name := range sortedKeys(entries) {
		e := entries[name]
		p, err := e.price(name)
		if err != nil {
			return m, err
		}
		m.names[name] = struct{}{}
		for _, pat := range e.patterns(name) {
			if other, dup := claimed[pat]; dup {
				return m, fmt.Errorf("model %q: %q is claimed by %q too", name, pat, other)
			}
			claimed[pat] = name
			if err := m.add(pat, p); err != nil {
				return m, fmt.Errorf("model %q: %w", name, err)
			}
		}
	}
	slices.SortStableFunc(m.globs, func(a, b glob) int { return literalLen(b.pattern) - literalLen(a.pattern) })
	return m, nil
}

func (e entry) price(name string) (Price, error) {
	if name == "" {
		return Price{}, errors.New("a model has an empty name")
	}
	if e.Input == nil || e.Output == nil {
		return Price{}, fmt.Errorf("model %q: input_usd_per_million and output_usd_per_million are required", name)
	}
	for _, f := range []struct {
		key string
		v   *float64
	}{
		{"input_usd_per_million", e.Input},
		{"output_usd_per_million", e.Output},
		{"cache_read_usd_per_million", e.CacheRead},
		{"cache_write_usd_per_million", e.CacheWrite},
		{"cache_write_1h_usd_per_million", e.CacheWrite1h},
	} {
		if f.v == nil {
			continue // an optional cache price not given
		}
		if v := *f.v; v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			return Price{}, fmt.Errorf("model %q: %s %v is not a non-negative number", name, f.key, v)
		}
	}
	p := Price{Model: name, InputPerMillion: *e.Input, OutputPerMillion: *e.Output}
	if e.CacheRead != nil {
		p.CacheReadPerMillion, p.HasCacheRead = *e.CacheRead, true
	}
	if e.CacheWrite != nil {
		p.CacheWritePerMillion, p.HasCacheWrite = *e.CacheWrite, true
	}
	if e.CacheWrite1h != nil {
		p.CacheWrite1hPerMillion, p.HasCacheWrite1h = *e.CacheWrite1h, true
	}
	return p, nil
}

func (e entry) patterns(name string) []string {
	if len(e.Match) == 0 {
		return []string{name}
	}
	return e.Match
}

func (m *matcher) add(pat string, p Price) error {
	if pat == "" {
		return errors.New("an empty match pattern")
	}
	if !strings.ContainsAny(pat, `*?[\`) {
		m.exact[pat] = p
		return nil
	}
	if _, err := path.Match(pat, ""); err != nil {
		return fmt.Errorf("match %q: %w", pat, err)
	}
	m.globs = append(m.globs, glob{pattern: pat, price: p})
	return nil
}

// literalLen is the length of a glob's literal prefix: the more specific
// pattern wins.
func literalLen(pat string) int {
	if i := strings.IndexAny(pat, `*?[\`); i >= 0 {
		return i
	}
	return len(pat)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
