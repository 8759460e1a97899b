package codex

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/journalship/journalship/internal/sample"
)

// render serializes a rollout's lines, applies what happened to their
// bytes (torn, cut by a crash) and records the truth of each line.
func render(s *session) (sample.File, error) {
	f := sample.File{Rel: rel(s.start, s.id), Format: FormatName, SessionID: s.id}
	enc := make([][]byte, len(s.recs))
	for i, r := range s.recs {
		if r.b == nil {
			enc[i] = []byte(r.raw + "\n")
			continue
		}
		b, err := sample.Marshal(r.b)
		if err != nil {
			return f, fmt.Errorf("codex sample: encode line %d: %w", i+1, err)
		}
		enc[i] = append(b, '\n')
	}
	var data bytes.Buffer
	for i := 0; i < len(s.recs); i++ {
		r, line, off := s.recs[i], enc[i], int64(data.Len())
		switch {
		case r.crash:
			body := line[:len(line)-1]
			f.PartialTail = slices.Clone(body[:s.x.Between(12, len(body)-2)])
			data.Write(f.PartialTail)
			i = len(s.recs)
			continue
		case r.torn && i+1 < len(s.recs):
			cut := s.x.Between(10, min(80, len(line)-2))
			line = append(slices.Clone(line[:cut]), enc[i+1]...)
			if json.Valid(bytes.TrimSuffix(line, []byte("\n"))) { // cannot happen: the prefix never closes
				return f, fmt.Errorf("codex sample: torn line %d is JSON", i+1)
			}
			f.Lines = append(f.Lines, corruptLine(off, line))
			i++
		case r.corrupt:
			f.Lines = append(f.Lines, corruptLine(off, line))
		default:
			f.Lines = append(f.Lines, truthLine(off, line, r))
		}
		data.Write(line)
	}
	f.Data = data.Bytes()
	return f, nil
}

func corruptLine(off int64, line []byte) sample.Line {
	return sample.Line{Offset: off, Text: string(bytes.TrimSuffix(line, []byte("\n"))), Seq: -1, Corrupt: true,
		Expect: []string{sample.AnnCorrupt}}
}

// truthLine is the truth of a readable line: its type, validity, state,
// annotations and the tokens it ships (tokens_in is the whole prompt,
// the cached part included).
func truthLine(off int64, line []byte, r *rec) sample.Line {
	l := sample.Line{Offset: off, Text: string(bytes.TrimSuffix(line, []byte("\n"))), Type: r.typ, Seq: -1,
		Valid: !r.invalid && !r.unknown, State: r.state}
	if r.invalid {
		l.Expect = append(l.Expect, sample.AnnSchemaInvalid)
	}
	if r.unknown {
		l.Expect = append(l.Expect, sample.AnnUnknownType)
	}
	l.Expect = append(l.Expect, r.notes...)
	if r.ship == nil {
		l.Model = r.model // a turn_context's
	}
	if u := r.ship; u != nil && (u.in > 0 || u.out > 0) {
		l.Model, l.Counted = r.model, true
		l.PromptTokens, l.CompletionTokens, l.CacheReadTokens = u.in, u.out, min(u.cached, u.in)
		l.Bill = r.bill
		if r.copied {
			// The original's path sorts first: it counts the response.
			l.Counted = false
			l.Expect = append(l.Expect, sample.AnnCountedElsewhere)
		}
	}
	return l
}
