package pipeline

import (
	"slices"

	"github.com/journalship/journalship/pricing"
)

// knownModels reports the model ids the price table in force names for
// any of tenants, or for no tenant (their entries and exact ids, a finite
// set): their token and cost series are kept whatever the limit of other
// model label values. Nil when prices has no table (no price table: every
// model is an other).
func knownModels(prices Pricer, tenants []string) func(string) bool {
	tenants = append(slices.Clip(tenants), "")
	names := func(t *pricing.Table, model string) bool {
		return slices.ContainsFunc(tenants, func(tn string) bool { return t.Names(tn, model) })
	}
	switch src := prices.(type) {
	case *pricing.Table:
		return func(model string) bool { return names(src, model) }
	case interface{ Table() *pricing.Table }:
		return func(model string) bool { return names(src.Table(), model) }
	}
	return nil
}
