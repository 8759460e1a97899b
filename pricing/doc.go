// Package pricing turns an LLM response's token counts into dollars.
//
// A price table is a YAML file: per model, the price in US dollars of one
// million input (prompt) and output (completion) tokens, optionally of one
// million prompt tokens read from and written to the provider's prompt
// cache (charged at the input price when not given), and the model ids the
// entry covers (exact ids or path.Match globs). Tenants may override
// entries. A model no entry covers has no price: the caller annotates it,
// it is never guessed. The table is loaded at start and again whenever the
// file changes (Source polls it, which also follows Kubernetes ConfigMap
// updates); a file that fails to load leaves the previous table in force.
//
// Format (see default_prices.yaml, the built-in table):
//
//	models:
//	  claude-sonnet-4-5:                 # the name a cost is attributed to
//	    match: ["claude-sonnet-4-5", "claude-sonnet-4-5-*"]
//	    input_usd_per_million: 3
//	    output_usd_per_million: 15
//	    cache_read_usd_per_million: 0.3   # optional
//	    cache_write_usd_per_million: 3.75 # optional
//	tenants:
//	  acme:
//	    models:
//	      claude-sonnet-4-5: {input_usd_per_million: 2.7, output_usd_per_million: 13.5}
package pricing
