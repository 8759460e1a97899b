package grafana

import (
	"bytes"
	"os"
	"path"
	"sort"
	"testing"

	"go.yaml.in/yaml/v3"
)

// priceTable is testdata/prices.yaml read by the test itself (not by the
// pricing package), to compute expected dollars independently.
type priceTable struct {
	Models  map[string]priceEntry `yaml:"models"`
	Tenants map[string]struct {
		Models map[string]priceEntry `yaml:"models"`
	} `yaml:"tenants"`
}

type priceEntry struct {
	Match  []string `yaml:"match"`
	Input  float64  `yaml:"input_usd_per_million"`
	Output float64  `yaml:"output_usd_per_million"`
	// CacheRead and CacheWrite: the prices of prompt tokens read from and
	// written to the cache; nil: the input price.
	CacheRead  *float64 `yaml:"cache_read_usd_per_million"`
	CacheWrite *float64 `yaml:"cache_write_usd_per_million"`
	// CacheWrite1h: the price of the cache writes to a one-hour cache
	// (Claude Code tells them apart); nil: the cache write price.
	CacheWrite1h *float64 `yaml:"cache_write_1h_usd_per_million"`
}

// pricesFile is the test's price table.
const pricesFile = "testdata/prices.yaml"

func readPrices(t testing.TB) *priceTable {
	t.Helper()
	data, err := os.ReadFile(pricesFile)
	if err != nil {
		t.Fatal(err)
	}
	var pt priceTable
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&pt); err != nil {
		t.Fatalf("%s: %v", pricesFile, err)
	}
	return &pt
}

// price returns the entry name and prices covering model for tenant
// ("default" or a tenant of the table): the tenant's entries first, then
// the table's; in each, an exact id before a glob. ok is false when no
// entry covers the model.
func (pt *priceTable) price(tenant, model string) (name string, e priceEntry, ok bool) {
	if tn, found := pt.Tenants[tenant]; found {
		if name, e, ok = lookupIn(tn.Models, model); ok {
			return name, e, true
		}
	}
	return lookupIn(pt.Models, model)
}

func lookupIn(entries map[string]priceEntry, model string) (string, priceEntry, bool) {
	names := make([]string, 0, len(entries))
	for n := range entries {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, exact := range []bool{true, false} {
		for _, n := range names {
			pats := entries[n].Match
			if len(pats) == 0 {
				pats = []string{n}
			}
			for _, p := range pats {
				if exact && p == model {
					return n, entries[n], true
				}
				if ok, _ := path.Match(p, model); !exact && ok {
					return n, entries[n], true
				}
			}
		}
	}
	return "", priceEntry{}, false
}

// cost is the dollars of a response at e: prompt (the whole prompt, cache
// reads and writes included) and completion tokens, each part of the
// prompt at its own price, the one-hour part of the cache writes
// (cacheWrite1h, within cacheWrite) at the one-hour price.
func (e priceEntry) cost(prompt, completion, cacheRead, cacheWrite, cacheWrite1h int64) float64 {
	uncached := max(0, prompt-cacheRead-cacheWrite)
	long := min(max(cacheWrite1h, 0), cacheWrite)
	write := orPrice(e.CacheWrite, e.Input)
	return (float64(uncached)*e.Input + float64(completion)*e.Output +
		float64(cacheRead)*orPrice(e.CacheRead, e.Input) + float64(cacheWrite-long)*write +
		float64(long)*orPrice(e.CacheWrite1h, write)) / 1e6
}

// orPrice is *p, or fallback when the table states no price.
func orPrice(p *float64, fallback float64) float64 {
	if p == nil {
		return fallback
	}
	return *p
}

// entryNames are the entry names of the table and every tenant.
func (pt *priceTable) entryNames() []string {
	seen := map[string]bool{}
	for n := range pt.Models {
		seen[n] = true
	}
	for _, tn := range pt.Tenants {
		for n := range tn.Models {
			seen[n] = true
		}
	}
	var out []string
	for n := range seen {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
