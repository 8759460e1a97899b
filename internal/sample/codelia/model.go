package codelia

import (
	"strings"

	"github.com/journalship/journalship/internal/sample"
)

// cacheStyle is how a provider reports prompt caching in its usage, as
// Codelia's adapters copy it into llm.response output.usage.
type cacheStyle uint8

const (
	// exclusive: input_tokens are the uncached tokens only; cache reads
	// (input_cached_tokens) and writes (input_cache_creation_tokens) come on
	// top (Anthropic).
	exclusive cacheStyle = iota
	// inclusive: input_tokens count every prompt token, cached ones too;
	// input_cached_tokens is the part read from the cache and there are no
	// cache writes (OpenAI).
	inclusive
	// implicit: inclusive, with cache reads only now and then and null when
	// none (Google's implicit caching).
	implicit
)

// provider is what the runtime knows of a model's provider.
type provider struct {
	name      string // model.provider in the header and in llm.request
	style     cacheStyle
	reasoning string // model.reasoning, "" when not written
	final     string // stop_reason of an answer without tool calls
}

// providerOf guesses the provider from the model id, as a user's config
// would name it.
func providerOf(model string) provider {
	switch m := strings.ToLower(model); {
	case strings.HasPrefix(m, "claude"):
		return provider{name: "anthropic", style: exclusive, final: "end_turn"}
	case strings.HasPrefix(m, "gemini"):
		return provider{name: "google", style: implicit, final: "stop"}
	default:
		return provider{name: "openai", style: inclusive, reasoning: "medium", final: "stop"}
	}
}

// usage is an llm.response's output.usage.
type usage struct {
	model                    string
	input, output            int64
	cached, creation         int64
	cachedNull, creationNull bool // written as null
	noCached, noCreation     bool // left out
	exclusive                bool // input leaves the cache out (the provider's style)
	omitTotal                bool // total_tokens left out: schema-invalid
}

// newUsage returns the usage of an invocation whose prompt is prompt
// tokens long, after one whose prompt was prev tokens long (0 for the
// run's first), answered in output tokens.
func (p provider) newUsage(x *rng, model string, prompt, prev, output int64) *usage {
	u := &usage{model: model, output: output, exclusive: p.style == exclusive}
	switch p.style {
	case exclusive:
		fresh := min(x.Between64(2, 14), prompt)
		read := min(prev, prompt-fresh)
		u.input, u.cached, u.creation = fresh, read, prompt-fresh-read
	case inclusive:
		u.input, u.creationNull = prompt, true
		if prev >= 1024 {
			u.cached = prev / 128 * 128
		}
	case implicit:
		u.input, u.noCreation = prompt, true
		if prev >= 2048 && x.Chance(0.6) {
			u.cached = prev * x.Between64(60, 95) / 100
		} else {
			u.cachedNull = true
		}
	}
	return u
}

// total is total_tokens as Codelia writes it: input plus output (cache
// reads and writes not included).
func (u *usage) total() int64 { return u.input + u.output }

// cacheReadTokens and cacheWriteTokens are the counts the product ships
// (null and absent: 0).
func (u *usage) cacheReadTokens() int64 {
	if u.cachedNull || u.noCached {
		return 0
	}
	return u.cached
}

func (u *usage) cacheWriteTokens() int64 {
	if u.creationNull || u.noCreation {
		return 0
	}
	return u.creation
}

// json renders the usage in Codelia's key order.
func (u *usage) json() obj {
	o := obj{{"model", u.model}, {"input_tokens", u.input}}
	switch {
	case u.noCached:
	case u.cachedNull:
		o = append(o, kv{"input_cached_tokens", nil})
	default:
		o = append(o, kv{"input_cached_tokens", u.cached})
	}
	switch {
	case u.noCreation:
	case u.creationNull:
		o = append(o, kv{"input_cache_creation_tokens", nil})
	default:
		o = append(o, kv{"input_cache_creation_tokens", u.creation})
	}
	o = append(o, kv{"output_tokens", u.output})
	if !u.omitTotal {
		o = append(o, kv{"total_tokens", u.total()})
	}
	return o
}

// MarshalJSON implements json.Marshaler: the record holds the usage
// itself, so a scenario may still change how it is written.
func (u *usage) MarshalJSON() ([]byte, error) { return sample.Marshal(u.json()) }
