package codelia

import (
	"bytes"
	"strconv"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/integrity"
)

// The invocations: llm.request and llm.response paired by seq, their model
// and tokens (docs/formats/codelia.md, Continuity; Model and tokens).

// request reads an llm.request: its model (model.name, else input.model,
// else the header's) and its invocation seq.
func (j *judge) request(s *State, a *integrity.Arena, ev *format.Event) {
	c := &j.c
	m, ok := format.NonEmptyStr(c, rModelName)
	if !ok {
		m, ok = format.NonEmptyStr(c, rInputModel)
	}
	if !ok && s != nil {
		m = s.headerModel
	}
	ev.Model = a.Copy(m)
	if !ev.HasSeq {
		return
	}
	ev.Pair, ev.HasPair = ev.Seq, true
	if s == nil {
		return
	}
	style := s.headerStyle
	if prov, ok := format.NonEmptyStr(c, rModelProvider); ok {
		style = styleOf(prov)
	}
	v := s.request(ev.Seq, ev.Model, style)
	if v.kind == orderGap {
		j.num = strconv.AppendInt(j.num[:0], v.last+1, 10)
		if ev.Seq-1 > v.last+1 {
			j.num = append(j.num, '-')
			j.num = strconv.AppendInt(j.num, ev.Seq-1, 10)
		}
		ev.Note(NoteRequestSeqGap, a.Copy(j.num))
		return
	}
	j.order(v, NoteRequestSeqRepeat, NoteRequestSeqRegression, a, ev)
}

// order annotates a repeat or a regression with "after <last>".
func (j *judge) order(v verdict, repeat, regression string, a *integrity.Arena, ev *format.Event) {
	kind := repeat
	switch v.kind {
	case orderRepeat:
	case orderRegression:
		kind = regression
	default:
		return
	}
	j.num = append(j.num[:0], "after "...)
	j.num = strconv.AppendInt(j.num, v.last, 10)
	ev.Note(kind, a.Copy(j.num))
}

// response reads an llm.response: its usage, its model (the usage's, else
// its request's, else the header's) and pairs it with its request
// (docs/formats/codelia.md, Model and tokens).
func (j *judge) response(s *State, a *integrity.Arena, ev *format.Event) {
	c := &j.c
	if c.Get(rUsage).Kind == integrity.JSONObject {
		u := &ev.Usage
		var okIn, okOut bool
		u.Input, okIn = count(c, rUsageInput)
		u.Output, okOut = count(c, rUsageOutput)
		u.CacheRead, _ = count(c, rUsageCached)
		u.CacheWrite, _ = count(c, rUsageCacheCreation)
		u.Has = okIn || okOut
		if m, ok := format.NonEmptyStr(c, rUsageModel); ok {
			ev.Model = a.Copy(m)
		}
	}
	if ev.HasSeq {
		ev.Pair, ev.HasPair = ev.Seq, true
	}
	if s == nil {
		wholePrompt(&ev.Usage, styleUnknown, ev.Model) // judged alone: the model names the provider
		return
	}
	req, found := pending{style: s.headerStyle}, true
	if ev.HasSeq {
		req, found = s.response(ev.Seq)
		if !found {
			ev.Note(NoteResponseWithoutRequest, nil)
		}
	}
	model := req.model
	if len(ev.Model) == 0 {
		if len(model) == 0 {
			model = s.headerModel
		}
		ev.Model = a.Copy(model)
	}
	wholePrompt(&ev.Usage, req.style, ev.Model)
}

// wholePrompt makes u.Input the whole prompt (format.Usage) when the
// provider counts input_tokens without the cache: it adds the cache reads
// and writes back. A provider nobody named (no model.provider in the
// header or request, or a response judged without its file's state) is
// known by its model: Anthropic's are "claude-…".
func wholePrompt(u *format.Usage, style inputStyle, model []byte) {
	if style == styleUnknown && bytes.HasPrefix(model, []byte("claude")) {
		style = styleExclusive
	}
	if u.Has && style == styleExclusive {
		u.Input = format.AddCounts(u.Input, format.AddCounts(u.CacheRead, u.CacheWrite))
	}
}

// count reads a token count: an integer >= 0, else 0.
func count(c *integrity.Capture, id int) (int64, bool) {
	if n, ok := c.Int(id); ok && n >= 0 {
		return n, true
	}
	return 0, false
}

// inputStyle is how a provider's usage, as Codelia's adapter copies it,
// counts input_tokens.
type inputStyle uint8

const (
	styleUnknown   inputStyle = iota // no provider named
	styleInclusive                   // every prompt token, cached ones too (OpenAI, Google)
	styleExclusive                   // the uncached tokens only; cache reads and writes come on top (Anthropic)
)

// styleOf returns a named provider's style (docs/formats/codelia.md, Model
// and tokens).
func styleOf(provider []byte) inputStyle {
	if string(provider) == "anthropic" {
		return styleExclusive
	}
	return styleInclusive
}
