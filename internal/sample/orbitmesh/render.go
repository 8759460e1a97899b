package orbitmesh

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/journalship/journalship/internal/sample"
)

// rendered is one session's file and side files.
type rendered struct {
	file sample.File
	side []sample.SideFile
}

// render serializes the session's records, applies what happened to their
// bytes (lost, torn, cut by a crash) and records the truth of each line.
func (s *session) render() (rendered, error) {
	side, f, err := s.sideFiles()
	if err != nil {
		return rendered{}, err
	}
	enc, err := encodeAll(s.recs)
	if err != nil {
		return rendered{}, err
	}
	out := rendered{side: side, file: sample.File{Rel: "sessions/" + s.id + ".messages.jsonl", Format: FormatName,
		SessionID: s.id, EndReason: s.endReason()}}
	var data bytes.Buffer
	q, t := &seqTruth{}, newTracker(f)
	for i := 0; i < len(s.recs); i++ {
		r, line, off := s.recs[i], enc[i], int64(data.Len())
		switch {
		case r.lost:
			continue
		case r.crash:
			body := line[:len(line)-1]
			out.file.PartialTail = append([]byte(nil), body[:s.x.Between(12, len(body)-1)]...)
			data.Write(out.file.PartialTail)
			i = len(s.recs)
			continue
		case r.torn && i+1 < len(s.recs):
			line = tornLine(s.x, line, enc[i+1])
			out.file.Lines = append(out.file.Lines, corruptLine(off, string(line[:len(line)-1])))
			i++
		default:
			l := lineTruth(off, string(line[:len(line)-1]), r, f, q, t)
			l.RunID = r.runID // the run each record states (the file has none of its own)
			out.file.Lines = append(out.file.Lines, l)
		}
		data.Write(line)
	}
	out.file.Data = data.Bytes()
	return out, nil
}

// encodeAll serializes each record as one line ending in "\n", without
// HTML escaping.
func encodeAll(recs []*rec) ([][]byte, error) {
	out := make([][]byte, len(recs))
	for i, r := range recs {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(r.b); err != nil {
			return nil, fmt.Errorf("orbitmesh sample: encode %s seq %d: %w", r.kind(), r.seq, err)
		}
		out[i] = b.Bytes()
	}
	return out, nil
}

// tornLine is an interleaved write: a prefix of first, then all of second.
// The prefix opens an object it never closes, so the line is never JSON.
func tornLine(x *rng, first, second []byte) []byte {
	cut := x.Between(10, min(60, len(first)-2))
	return append(append([]byte(nil), first[:cut]...), second...)
}

// endReason is how the session's latest run ended ("completed", "failed",
// "cancelled", "interrupted"), "" when it goes on (running, waiting, or
// cut off by a crash).
func (s *session) endReason() string {
	for i := len(s.recs) - 1; i >= 0; i-- {
		r := s.recs[i]
		if r.runID != s.run.id || r.crash || r.lost {
			continue
		}
		switch k := r.kind(); k {
		case KindRunCompleted, KindRunFailed, KindRunCancelled, KindRunInterrupted:
			return k[len("run."):]
		}
	}
	return ""
}
