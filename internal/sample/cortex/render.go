package cortex

import (
	"bytes"
	"fmt"
	"time"

	"github.com/journalship/journalship/internal/sample"
)

// fileNameLayout is the compact ISO 8601 time in session file names.
const fileNameLayout = "20060102T150405Z"

// sessionMeta names a session's file.
type sessionMeta struct {
	jobID, sessionID, pod, agentID string
	start                          time.Time
	end                            string
}

// render numbers the events, serializes them, applies what happened to
// their bytes (lost, torn, cut by a crash) and records the truth.
func render(x *rng, m sessionMeta, recs []*rec) (sample.File, error) {
	assignSeq(recs)
	enc, err := encodeAll(recs)
	if err != nil {
		return sample.File{}, err
	}
	f := sample.File{
		Rel:    m.jobID + "/session_" + m.start.UTC().Format(fileNameLayout) + "_" + m.pod + ".jsonl",
		Format: FormatName, JobID: m.jobID, SessionID: m.sessionID, Pod: m.pod, AgentID: m.agentID, EndReason: m.end,
	}
	var data bytes.Buffer
	for i := 0; i < len(recs); i++ {
		r, line := recs[i], enc[i]
		switch {
		case r.drop:
			continue
		case r.crash:
			body := line[:len(line)-1]
			f.PartialTail = append([]byte(nil), body[:x.Between(12, len(body)-1)]...)
			data.Write(f.PartialTail)
			i = len(recs)
			continue
		case r.torn && i+1 < len(recs):
			line = sample.TornLine(x.Rand, line, enc[i+1], 60)
			f.Lines = append(f.Lines, corruptLine(int64(data.Len()), line))
			i++
		default:
			f.Lines = append(f.Lines, truthLine(int64(data.Len()), line, r))
		}
		data.Write(line)
	}
	f.Data = data.Bytes()
	annotateSeq(f.Lines)
	return f, nil
}

// assignSeq numbers the events from 0 in append order. A stale event
// reuses an old number and does not advance the counter.
func assignSeq(recs []*rec) {
	next := int64(0)
	for _, r := range recs {
		if r.stale > 0 {
			r.hdr.Seq = max(next-1-r.stale, 0)
			continue
		}
		r.hdr.Seq = next
		next++
	}
}

// encodeAll serializes each event as one line ending in "\n", without HTML
// escaping (like JSON.stringify).
func encodeAll(recs []*rec) ([][]byte, error) {
	out := make([][]byte, len(recs))
	for i, r := range recs {
		b, err := sample.Marshal(r.body)
		if err != nil {
			return nil, fmt.Errorf("sample: encode %s seq %d: %w", r.hdr.Type, r.hdr.Seq, err)
		}
		out[i] = append(b, '\n')
	}
	return out, nil
}

func corruptLine(off int64, line []byte) sample.Line {
	return sample.Line{Offset: off, Text: string(line[:len(line)-1]), Seq: -1, Corrupt: true, Expect: []string{sample.AnnCorrupt}}
}

func truthLine(off int64, line []byte, r *rec) sample.Line {
	l := sample.Line{Offset: off, Text: string(line[:len(line)-1]), Type: r.hdr.Type, Seq: r.hdr.Seq,
		Valid: !r.invalid && !r.unknown, Model: r.model}
	if r.hdr.Type == TypeLLMResponse {
		l.PromptTokens, l.CompletionTokens = r.prompt, r.completion
		l.Counted = l.Valid
	}
	switch {
	case r.unknown:
		l.Expect = append(l.Expect, sample.AnnUnknownType)
	case r.invalid:
		l.Expect = append(l.Expect, sample.AnnSchemaInvalid)
	}
	return l
}

// annotateSeq adds the seq_gap and seq_regression annotations (see the
// package documentation for the rule).
func annotateSeq(lines []sample.Line) {
	highest := int64(-1)
	for i := range lines {
		l := &lines[i]
		if l.Corrupt || l.Seq < 0 {
			continue
		}
		switch {
		case l.Seq <= highest:
			l.Expect = append(l.Expect, sample.AnnSeqRegression)
			continue
		case l.Seq > highest+1:
			l.Expect = append(l.Expect, fmt.Sprintf("%s%d-%d", sample.AnnSeqGapPrefix, highest+1, l.Seq-1))
		}
		highest = l.Seq
	}
}
