package pipeline

import "github.com/journalship/journalship/pricing"

// knownModels reports the model ids the price table in force names for
// tenant (its entries and exact ids, a finite set): their token and cost
// series are kept whatever the limit of other model label values. Nil
// when prices has no table (no price table: every model is an other).
func knownModels(prices Pricer, tenant string) func(string) bool {
	switch src := prices.(type) {
	case *pricing.Table:
		return func(model string) bool { return src.Names(tenant, model) }
	case interface{ Table() *pricing.Table }:
		return func(model string) bool { return src.Table().Names(tenant, model) }
	}
	return nil
}
