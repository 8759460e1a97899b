package orbitmesh

import (
	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/integrity"
)

// The runtime's message log (docs/formats/orbitmesh.md, Records as the
// runtime writes them): OrbitMesh's storage appends
// {"seq","timestamp","projection","kind","contents","raw"}, seq from 1 up
// by one, timestamp the entry's time, raw the provider's own event (for a
// Claude provider, its stream-json event).

// usageFields is the number of paths of a usage object (schema.go:
// raw.message.usage for message_start, raw.usage for message_delta).
const usageFields = format.UsageFields

// The provider events whose usage is counted (raw.type).
const (
	eventMessageStart = "message_start"
	eventMessageDelta = "message_delta"
)

// Violation reasons of the runtime's records.
const (
	reasonMin1       = "must be >= 1"
	reasonProjection = "must be one of append, append_raw, append_output_delta"
)

// currentShape tells whether a line is a record of the runtime's message
// log: one of its eight kinds, or an unknown kind written with timestamp
// (not the plan's ts).
func (j *judge) currentShape(k kind) bool {
	return k.current() || k == kUnknown && j.c.Has(pTimestamp) && !j.c.Has(pTS)
}

// currentSchema checks a record of the runtime's message log into ev and
// returns what the state needs: the provider's model and usage from raw.
func (j *judge) currentSchema(k kind, a *integrity.Arena, ev *format.Event) (f fields) {
	c := &j.c
	j.seqField(1, reasonMin1, ev)
	j.timeField(pTimestamp, "timestamp", ev)
	j.dup(pProjection, ev)
	switch s, ok := c.Str(pProjection); {
	case !c.Has(pProjection):
		ev.Violate("projection", reasonRequired)
	case !ok:
		ev.Violate("projection", reasonNotString)
	case !projectionOf(s):
		ev.Violate("projection", reasonProjection)
	}
	j.dup(pContents, ev)
	if _, ok := c.Str(pContents); !ok {
		if c.Has(pContents) {
			ev.Violate("contents", reasonNotString)
		} else {
			ev.Violate("contents", reasonRequired)
		}
	}
	j.dup(pRaw, ev) // any JSON value
	j.provider(k, a, ev, &f)
	return f
}

// projectionOf tells whether b is one of the log's three projections.
func projectionOf(b []byte) bool {
	switch string(b) {
	case "append", "append_raw", "append_output_delta":
		return true
	}
	return false
}

// provider reads the provider's event in raw: the model it names
// (message_start, an assistant message, a system init) and, on a metric
// record, the usage of message_start or message_delta, which makes the
// line an llm_response.
func (j *judge) provider(k kind, a *integrity.Arena, ev *format.Event, f *fields) {
	c := &j.c
	typ, _ := c.Str(pRawType)
	if m, ok := format.NonEmptyStr(c, pRawMessageModel); ok {
		ev.Model = a.Copy(m)
	} else if m, ok := format.NonEmptyStr(c, pRawModel); ok && string(typ) == "system" {
		ev.Model = a.Copy(m)
	}
	if k != kMetric {
		return
	}
	switch string(typ) {
	case eventMessageStart:
		if f.usage, f.hasUsage = j.usageAt(pStartUsage); f.hasUsage {
			f.start = true
			id, _ := format.NonEmptyStr(c, pRawMessageID)
			f.response = hash(id) | 1 // never 0: a response without id is one too
		}
	case eventMessageDelta:
		f.usage, f.hasUsage = j.usageAt(pDeltaUsage)
	}
	if f.hasUsage {
		ev.Role = format.RoleLLMResponse
	}
}

// usageAt reads the usage object at id as the neutral usage
// (format.AnthropicUsage).
func (j *judge) usageAt(id int) (format.Usage, bool) {
	return format.AnthropicUsage(&j.c, id)
}
