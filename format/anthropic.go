package format

import "github.com/journalship/journalship/integrity"

// Runtimes that call Anthropic's Messages API write its usage objects as
// they come (Claude Code's transcripts and stream-json events, OrbitMesh's
// Claude provider events): {"input_tokens", "output_tokens",
// "cache_creation_input_tokens", "cache_read_input_tokens",
// "cache_creation": {"ephemeral_5m_input_tokens",
// "ephemeral_1h_input_tokens"}}. A format that reads one captures its
// members with AnthropicUsagePaths and reads it with AnthropicUsage.

// Offsets of a usage object's members from the id of the object's path,
// in the order of AnthropicUsagePaths.
const (
	UsageObject = iota
	UsageInput
	UsageOutput
	UsageCacheCreation
	UsageCacheRead
	UsageCacheSplit
	UsageCache5m
	UsageCache1h
	// UsageFields is the number of paths of one usage object.
	UsageFields
)

// AnthropicUsagePaths returns the paths of a usage object under prefix and
// of its members, in the order of the Usage offsets.
func AnthropicUsagePaths(prefix string) []string {
	return []string{prefix, prefix + ".input_tokens", prefix + ".output_tokens",
		prefix + ".cache_creation_input_tokens", prefix + ".cache_read_input_tokens",
		prefix + ".cache_creation", prefix + ".cache_creation.ephemeral_5m_input_tokens",
		prefix + ".cache_creation.ephemeral_1h_input_tokens"}
}

// AnthropicUsage reads the usage object captured at id as the neutral
// Usage: Input is the whole prompt (Anthropic counts the cache apart),
// CacheWrite the cache writes (the 5m/1h split's sum when present and
// different, as ccusage does), CacheWrite1h the one-hour part. It reports
// false when id holds no object.
func AnthropicUsage(c *integrity.Capture, id int) (Usage, bool) {
	if c.Get(id+UsageObject).Kind != integrity.JSONObject {
		return Usage{}, false
	}
	in := TokenCount(c, id+UsageInput)
	cw, cr := TokenCount(c, id+UsageCacheCreation), TokenCount(c, id+UsageCacheRead)
	var cw1h int64
	if c.Get(id+UsageCacheSplit).Kind == integrity.JSONObject && (c.Has(id+UsageCache5m) || c.Has(id+UsageCache1h)) {
		cw1h = TokenCount(c, id+UsageCache1h)
		if split := AddCounts(TokenCount(c, id+UsageCache5m), cw1h); split != cw {
			cw = split
		}
	}
	return Usage{Input: AddCounts(in, AddCounts(cw, cr)), Output: TokenCount(c, id+UsageOutput),
		CacheRead: cr, CacheWrite: cw, CacheWrite1h: cw1h, Has: true}, true
}

// TokenCount reads a token count captured at id: an integer >= 0, else 0.
func TokenCount(c *integrity.Capture, id int) int64 {
	if n, ok := c.Int(id); ok && n >= 0 {
		return n
	}
	return 0
}
