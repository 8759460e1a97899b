package claudecode

import (
	"bytes"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/integrity"
)

// Partial messages and the run's own report (docs/formats/claude-code.md,
// Tokens and cost). A capture made with --include-partial-messages writes
// each response's streaming events: message_start (the response's id,
// model and a first usage snapshot) and message_delta (its final usage,
// without id or model). Both count under the response's message.id, as
// its assistant lines do: every counter at its largest value, once. A
// message_delta belongs to the last message_start of its stream (the
// main agent's, or one subagent's: parent_tool_use_id).
//
// A result line reports the run's usage per model (modelUsage), helper
// calls (a Haiku model) included, which no other line shows: what it
// reports beyond what the run's lines counted ships on it, under its
// model. It ships one model's: a model short of more than the run's
// withdrawn lines gave back (a helper) before one short of no more (the
// withdrawn lines' own usage, which may be lost).

// maxStreams bounds the streams (main agent and subagents) whose open
// response a State remembers; maxModels the models of a run it counts.
const (
	maxStreams = 64
	maxModels  = 32
)

// openResponse is the response a stream's last message_start opened. Its
// buffer is reused by later ones.
type openResponse struct {
	stream, h uint64
	model     []byte
}

// modelCount is the usage a run's lines counted under one model, and
// what lines withdrawn gave back of it (format.Withdrawer). Its buffer is
// reused by later runs.
type modelCount struct {
	name         []byte
	c, withdrawn counters
}

// modelUsageKeys are the members of a modelUsage entry the judge reads.
var modelUsageKeys = integrity.MustKeys(integrity.Key{Name: "inputTokens"}, integrity.Key{Name: "outputTokens"},
	integrity.Key{Name: "cacheReadInputTokens"}, integrity.Key{Name: "cacheCreationInputTokens"})

// Ids of modelUsageKeys.
const (
	muInput = iota
	muOutput
	muCacheRead
	muCacheWrite
	muKeyCount
)

// streamUsage counts a message_start's or message_delta's usage; the line
// is then an llm_response of the response's model.
func (j *judge) streamUsage(s *State, f *facts, a *integrity.Arena, ev *format.Event) {
	c := &j.c
	typ, _ := c.Str(pEventType)
	var u format.Usage
	var ok bool
	switch string(typ) {
	case eventMessageStart:
		u, ok = j.usageAt(pStartUsage)
	case eventMessageDelta:
		u, ok = j.usageAt(pDeltaUsage)
	}
	if !ok {
		return
	}
	ev.Role = format.RoleLLMResponse
	if s == nil {
		ev.Note(NoteUsageUnverified, nil)
		return
	}
	stream := j.streamKey()
	var r *openResponse
	if string(typ) == eventMessageStart {
		id, _ := format.NonEmptyStr(c, pEventMessageID) // required of a valid line
		m, _ := c.Str(pEventMessageModel)
		r = s.start(stream, hash(id), m)
	} else if r = s.openIn(stream); r == nil {
		return // no message_start before it: no response to count under
	}
	if len(r.model) > 0 {
		ev.Model = a.Copy(r.model)
	}
	var unstated uint8
	if string(typ) == eventMessageDelta {
		unstated = j.unstated(pDeltaUsage)
	}
	j.countResponse(s, r.h, 0, u, unstated, a, ev)
}

// unstated tells which counters the usage object at id does not state (a
// message_delta's may carry output_tokens only, and never the cache's
// 5m/1h split), one bit per index in counters.
func (j *judge) unstated(id int) uint8 {
	c := &j.c
	var m uint8
	split := c.Get(id+uCacheSplit).Kind == integrity.JSONObject
	if !c.Has(id + uCacheRead) {
		m |= 1 << cRead
	}
	if !c.Has(id+uCacheCreation) && !split {
		m |= 1 << cWrite
	}
	if !split {
		m |= 1 << c1h
	}
	if !c.Has(id+uInput) || m&(1<<cRead|1<<cWrite) != 0 {
		m |= 1 << cInput // the whole prompt adds the cache counts
	}
	return m
}

// streamKey names the stream of a streaming event: its
// parent_tool_use_id's hash (0: the main agent).
func (j *judge) streamKey() uint64 {
	if p, ok := format.NonEmptyStr(&j.c, pParentToolUseID); ok {
		return hash(p) | 1
	}
	return 0
}

// start records that a message_start opened response h of model m in
// stream; past maxStreams streams the oldest slot is reused.
func (s *State) start(stream, h uint64, m []byte) *openResponse {
	r := s.openIn(stream)
	switch {
	case r != nil:
	case len(s.streams) < maxStreams:
		s.streams = append(s.streams, openResponse{stream: stream})
		r = &s.streams[len(s.streams)-1]
	default:
		r = &s.streams[s.streamNext%maxStreams]
		s.streamNext++
		r.stream = stream
	}
	r.h = h
	if string(m) == syntheticModel {
		m = nil
	}
	r.model = append(r.model[:0], m...)
	return r
}

// openIn returns the response open in stream, nil when none.
func (s *State) openIn(stream uint64) *openResponse {
	for i := range s.streams {
		if s.streams[i].stream == stream {
			return &s.streams[i]
		}
	}
	return nil
}

// counted adds the usage the line ships to its model's count in the run,
// and remembers it for Withdraw.
func (s *State) counted(ev *format.Event) {
	s.last.model = -1
	if len(ev.Model) == 0 {
		return
	}
	i := s.modelIndex(ev.Model)
	if i < 0 {
		return
	}
	s.last.model, s.last.usage = i, countersOf(&ev.Usage)
	add(&s.models[i].c, &s.last.usage)
}

// modelIndex returns the index of model in the run's counts, added when
// new; -1 (and the run's report is no longer topped up) past maxModels.
func (s *State) modelIndex(model []byte) int {
	for i := range s.models {
		if bytes.Equal(s.models[i].name, model) {
			return i
		}
	}
	if len(s.models) >= maxModels {
		s.modelsLost = true
		return -1
	}
	if len(s.models) < cap(s.models) {
		s.models = s.models[:len(s.models)+1] // reuse the entry's buffer
	} else {
		s.models = append(s.models, modelCount{})
	}
	m := &s.models[len(s.models)-1]
	m.name, m.c, m.withdrawn = append(m.name[:0], model...), counters{}, counters{}
	return len(s.models) - 1
}

// endRun forgets the run's counts: a result line ended it.
func (s *State) endRun() {
	s.models, s.modelsLost = s.models[:0], false
}

// add adds b to a, saturating.
func add(a, b *counters) {
	for i := range a {
		a[i] = format.AddCounts(a[i], b[i])
	}
}

// topUp ships on a result line what its modelUsage reports beyond what
// the run's lines counted, for one model that falls short: that model's
// usage then equals the run's report. A line carries one model's usage:
// the first model (in the line's order) short of more than what withdrawn
// lines gave back of it, else the first one short at all. So a helper
// model, which no line shows, is topped up even when a line of the main
// model was withdrawn (whose usage alone is then lost), and a withdrawn
// line's usage is shipped when no other model falls short. The one-hour
// cache writes, which modelUsage does not split, are those the result's
// usage reports beyond the run's lines, at most the model's missing cache
// writes.
func (j *judge) topUp(s *State, a *integrity.Arena, ev *format.Event) {
	c := &j.c
	if s.modelsLost || c.Get(pModelUsage).Kind != integrity.JSONObject {
		return
	}
	obj := c.Raw(pModelUsage)
	for pass := range 2 {
		if !j.outer.Start(obj) {
			return
		}
		var m integrity.Member
		for j.outer.Next(&m, modelUsageKeys) {
			if m.Kind != integrity.JSONObject {
				continue
			}
			name := m.Key(obj)
			if m.KeyEsc {
				j.buf = integrity.Unescape(j.buf[:0], name)
				name = j.buf
			}
			short, ok, beyond := j.shortfall(s, name, m.Raw(obj))
			if !ok || pass == 0 && !beyond {
				continue
			}
			short[c1h] = min(short[cWrite], max(0, format.TokenCount(c, pResultCache1h)-s.counted1h()))
			ev.Model, ev.Usage = a.Copy(name), short.usage()
			return
		}
	}
}

// shortfall returns how far a modelUsage entry (obj) of model name
// exceeds what the run's lines counted under it, the one-hour part left
// 0; ok is false when it exceeds it nowhere, beyond whether it exceeds
// somewhere what withdrawn lines gave back of it.
func (j *judge) shortfall(s *State, name, obj []byte) (short counters, ok, beyond bool) {
	var stated [muKeyCount]int64
	if j.inner.Start(obj) {
		var m integrity.Member
		for j.inner.Next(&m, modelUsageKeys) {
			if m.ID < muKeyCount {
				if n, ok := m.Int(obj); ok && n >= 0 {
					stated[m.ID] = n
				}
			}
		}
	}
	in := format.AddCounts(stated[muInput], format.AddCounts(stated[muCacheRead], stated[muCacheWrite]))
	want := counters{in, stated[muOutput], stated[muCacheRead], stated[muCacheWrite], 0}
	var have, withdrawn counters
	for i := range s.models {
		if bytes.Equal(s.models[i].name, name) {
			have, withdrawn = s.models[i].c, s.models[i].withdrawn
		}
	}
	for i := range c1h {
		if want[i] > have[i] {
			short[i], ok = want[i]-have[i], true
			beyond = beyond || short[i] > withdrawn[i]
		}
	}
	return short, ok, beyond
}

// counted1h is the one-hour cache writes the run's lines counted.
func (s *State) counted1h() int64 {
	var n int64
	for i := range s.models {
		n = format.AddCounts(n, s.models[i].c[c1h])
	}
	return n
}
