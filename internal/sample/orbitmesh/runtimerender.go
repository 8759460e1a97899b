package orbitmesh

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/journalship/journalship/internal/sample"
)

// render serializes the runtime-shaped session's records as
// AppendMessageLog writes them (encoding/json, HTML escaped), applies what
// happened to their bytes (lost, cut by a crash) and records the truth of
// each line and of the session.
func (s *rsession) render() (rendered, Session, error) {
	side, err := s.sideFiles()
	if err != nil {
		return rendered{}, Session{}, err
	}
	out := rendered{side: side, file: sample.File{Rel: "sessions/" + s.id + ".messages.jsonl", Format: FormatName, SessionID: s.id}}
	t := &runtimeTruth{s: s}
	var data bytes.Buffer
	for _, r := range s.recs {
		b, err := json.Marshal(r.r)
		if err != nil {
			return rendered{}, Session{}, fmt.Errorf("orbitmesh sample: encode %s seq %d: %w", r.r.Kind, r.r.Seq, err)
		}
		switch {
		case r.lost:
			continue
		case r.crash:
			out.file.PartialTail = append([]byte(nil), b[:s.x.Between(12, len(b)-1)]...)
			data.Write(out.file.PartialTail)
		default:
			l := t.line(int64(data.Len()), string(b), r, len(out.file.Lines))
			out.file.Lines = append(out.file.Lines, l)
			data.Write(append(b, '\n'))
		}
		if r.crash {
			break
		}
	}
	out.file.Data = data.Bytes()
	over, reason := t.over()
	out.file.EndReason = reason
	truth := Session{ID: s.id, Shape: ShapeRuntime, Provider: s.provider, Scenario: s.scenario, Over: over, EndReason: reason,
		Final: s.final(), Ends: t.ends, DocReadable: !s.docTorn, Attempts: len(s.attempts), Tokens: len(s.tokens)}
	return out, truth, nil
}
