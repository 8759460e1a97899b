package claudecode

import (
	"bytes"
	"fmt"

	"github.com/journalship/journalship/internal/sample"
)

// render serializes a transcript's lines, applies what happened to their
// bytes (lost, torn, cut by a crash) and records the truth of each line.
// main is what the session's main transcript holds (nil when t is the
// main transcript); render returns the same of t.
func render(s *session, t *transcript, main *mainFacts) (sample.File, *mainFacts, error) {
	enc, err := encodeAll(t.recs)
	if err != nil {
		return sample.File{}, nil, err
	}
	f := sample.File{Rel: s.rel(t, ".jsonl"), Format: FormatName, SessionID: s.id}
	if t.kind != kindMain {
		f.AgentID = t.fileAgent
	}
	ft := newFileTruth(t.kind, s.id, t.fileAgent, main)
	var data bytes.Buffer
	for i := 0; i < len(t.recs); i++ {
		r, line, off := t.recs[i], enc[i], int64(data.Len())
		switch {
		case r.lost:
			continue
		case r.crash:
			body := line[:len(line)-1]
			f.PartialTail = append([]byte(nil), body[:s.x.Between(12, len(body)-2)]...)
			data.Write(f.PartialTail)
			i = len(t.recs)
			continue
		case r.torn && i+1 < len(t.recs):
			line = sample.TornLine(s.x.Rand, line, enc[i+1], 120)
			f.Lines = append(f.Lines, ft.corrupt(off, lineText(line)))
			i++
		case r.corrupt:
			f.Lines = append(f.Lines, ft.corrupt(off, lineText(line)))
		default:
			f.Lines = append(f.Lines, ft.line(off, lineText(line), r))
			if r.res != nil {
				f.EndReason = r.res.subtype // the capture's run ended
			}
		}
		data.Write(line)
	}
	f.Data = data.Bytes()
	return f, &ft.facts, nil
}

// encodeAll serializes each line, ending in "\n".
func encodeAll(recs []*rec) ([][]byte, error) {
	out := make([][]byte, len(recs))
	for i, r := range recs {
		if r.b == nil {
			out[i] = []byte(r.raw + "\n")
			continue
		}
		b, err := sample.Marshal(r.b)
		if err != nil {
			return nil, fmt.Errorf("claudecode sample: encode %s line: %w", r.typ, err)
		}
		out[i] = append(b, '\n')
	}
	return out, nil
}
