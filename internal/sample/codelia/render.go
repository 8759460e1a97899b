package codelia

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/journalship/journalship/internal/sample"
)

// render serializes a run's records, applies what happened to their bytes
// (lost, torn, cut by a crash) and records the truth of each line.
func render(x *rng, r *run) (sample.File, error) {
	enc, err := encodeAll(r.recs)
	if err != nil {
		return sample.File{}, err
	}
	f := sample.File{Rel: "sessions/" + r.dir.Format("2006/01/02") + "/" + r.fileID + ".jsonl",
		Format: FormatName, RunID: r.id}
	t := newFileTruth(r.fileID, r.dir)
	var data bytes.Buffer
	for i := 0; i < len(r.recs); i++ {
		rc, line := r.recs[i], enc[i]
		off := int64(data.Len())
		switch {
		case rc.fate == dropped:
			continue
		case rc.fate == crashed:
			f.PartialTail = append([]byte(nil), line[:x.Between(12, len(line)-2)]...)
			data.Write(f.PartialTail)
			i = len(r.recs)
			continue
		case rc.fate == tornWithNext && i+1 < len(r.recs):
			line = sample.TornLine(x.Rand, line, enc[i+1], 60)
			f.Lines = append(f.Lines, t.corrupt(off, line))
			i++
		default:
			f.Lines = append(f.Lines, t.line(off, line, rc))
			if rc.typ == typeRunEnd || rc.typ == typeRunStatus && slices.Contains([]string{"completed", "error", "cancelled"}, rc.status) {
				f.EndReason = rc.status // the last line that ends the run says how
			}
		}
		data.Write(line)
	}
	f.Data = data.Bytes()
	f.SessionID = t.sessionID
	return f, nil
}

// encodeAll serializes each record as one line ending in "\n".
func encodeAll(recs []*rec) ([][]byte, error) {
	out := make([][]byte, len(recs))
	for i, rc := range recs {
		b, err := sample.Marshal(rc.body)
		if err != nil {
			return nil, fmt.Errorf("codelia sample: encode %s: %w", rc.typ, err)
		}
		out[i] = append(b, '\n')
	}
	return out, nil
}

// toLine is the truth of a line that has no annotation of its own yet.
func toLine(off int64, line []byte) sample.Line {
	return sample.Line{Offset: off, Text: string(line[:len(line)-1]), Seq: -1}
}
