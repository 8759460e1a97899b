package orbitmesh

import (
	"bytes"
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
			line = sample.TornLine(s.x.Rand, line, enc[i+1], 60)
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
		b, err := sample.Marshal(r.b)
		if err != nil {
			return nil, fmt.Errorf("orbitmesh sample: encode %s seq %d: %w", r.kind(), r.seq, err)
		}
		out[i] = append(b, '\n')
	}
	return out, nil
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
