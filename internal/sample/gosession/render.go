package gosession

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/journalship/journalship/internal/sample"
)

// emit renders the session's files into c and returns its truth.
func (s *session) emit(c *sample.Corpus) (Session, error) {
	st := Session{ID: s.id, Dir: s.id, Scenario: s.scenario, MetadataReadable: !s.noMeta && !s.metaCut, Transcript: s.transcript,
		Nested: s.nested}
	if st.MetadataReadable {
		m := &s.meta
		st.ExitReason, st.TurnCount, st.TotalCostUSD, st.ParentID = m.ExitReason, m.TurnCount, m.TotalCostUSD, m.ParentSessionID
		st.Model, st.AgentName, st.CWD, st.CreatedAt, st.UpdatedAt = m.Model, m.AgentName, m.CWD, m.CreatedAt, m.UpdatedAt
	}
	mf, ft, err := s.renderMessages(st.Model)
	if err != nil {
		return Session{}, err
	}
	st.Over = st.MetadataReadable && isOver(&s.meta, ft.newest, ft.hasNewer)
	st.State, st.Unanswered = ft.state, ft.open
	if st.Over {
		st.State, mf.EndReason = StateIdle, st.ExitReason
	}
	c.Files = append(c.Files, mf)
	if s.transcript {
		tf, err := s.renderTranscript()
		if err != nil {
			return Session{}, err
		}
		// Its newest message is messages.jsonl's (complete lines, at the
		// end of the file): the same rule, the same answer.
		tf.EndReason = mf.EndReason
		c.Files = append(c.Files, tf)
	}
	side, cps, err := s.sideFiles()
	if err != nil {
		return Session{}, err
	}
	c.Side = append(c.Side, side...)
	st.Checkpoints = cps
	return st, nil
}

// renderMessages serializes messages.jsonl, applies what happened to its
// lines (lost, torn, cut by a crash) and records the truth of each.
func (s *session) renderMessages(model string) (sample.File, *fileTruth, error) {
	f := sample.File{Rel: s.id + "/messages.jsonl", Format: FormatName, SessionID: s.id}
	enc := make([][]byte, len(s.recs))
	for i, r := range s.recs {
		b := []byte(r.raw)
		if r.b != nil {
			var err error
			if b, err = sample.Marshal(r.b); err != nil {
				return f, nil, fmt.Errorf("gosession sample: encode %s message: %w", r.role, err)
			}
		}
		enc[i] = append(b, '\n')
	}
	ft := newFileTruth(model)
	var data bytes.Buffer
	for i := 0; i < len(s.recs); i++ {
		r, line, off := s.recs[i], enc[i], int64(data.Len())
		switch {
		case r.lost:
			continue
		case r.crash:
			body := line[:len(line)-1]
			f.PartialTail = append([]byte(nil), body[:s.x.Between(12, len(body)-2)]...)
			data.Write(f.PartialTail)
			i = len(s.recs)
			continue
		case r.torn && i+1 < len(s.recs):
			line = sample.TornLine(s.x.Rand, line, enc[i+1], 120)
			f.Lines = append(f.Lines, ft.corrupt(off, lineText(line)))
			i++
		case r.corrupt:
			f.Lines = append(f.Lines, ft.corrupt(off, lineText(line)))
		default:
			f.Lines = append(f.Lines, ft.line(off, lineText(line), r))
		}
		data.Write(line)
	}
	f.Data = data.Bytes()
	return f, ft, nil
}

// renderTranscript serializes transcript.jsonl: every line an SDK message
// with a string type, valid, of type "transcript", with no state.
func (s *session) renderTranscript() (sample.File, error) {
	f := sample.File{Rel: s.id + "/transcript.jsonl", Format: FormatName, SessionID: s.id}
	var data bytes.Buffer
	for _, o := range s.tr {
		b, err := sample.Marshal(o)
		if err != nil {
			return f, fmt.Errorf("gosession sample: encode SDK message: %w", err)
		}
		f.Lines = append(f.Lines, sample.Line{Offset: int64(data.Len()), Text: string(b), Type: TypeTranscript, Seq: -1, Valid: true})
		data.Write(append(b, '\n'))
	}
	f.Data = data.Bytes()
	return f, nil
}

// lineText is a line's bytes without the newline.
func lineText(b []byte) string { return strings.TrimSuffix(string(b), "\n") }

// sideFiles renders what the session directory holds beside its journals:
// metadata.json (indented as json.MarshalIndent writes it; cut when
// half-written), the empty lock files, each checkpoint's manifest and the
// blobs of the files that existed. It returns the complete checkpoints.
func (s *session) sideFiles() ([]sample.SideFile, []Checkpoint, error) {
	var out []sample.SideFile
	if !s.noMeta {
		b, err := json.MarshalIndent(s.meta.doc(s.nested), "", "  ")
		if err != nil {
			return nil, nil, err
		}
		if s.metaCut {
			b = b[:s.x.Between(len(b)/4, len(b)*3/4)]
		}
		out = append(out, sample.SideFile{Rel: s.id + "/metadata.json", Data: b})
	}
	out = append(out, sample.SideFile{Rel: s.id + "/messages.jsonl.lock", Data: []byte{}})
	if s.transcript {
		out = append(out, sample.SideFile{Rel: s.id + "/transcript.jsonl.lock", Data: []byte{}})
	}
	var cps []Checkpoint
	for _, cp := range s.cps {
		dir := path.Join(s.id, "checkpoints", cp.dir)
		b, blobs := manifest(cp)
		if cp.cut {
			b = b[:s.x.Between(len(b)/4, len(b)*3/4)]
		} else {
			cps = append(cps, Checkpoint{ID: cp.id, Dir: cp.dir, Time: cp.at, Files: len(cp.files)})
		}
		out = append(out, sample.SideFile{Rel: dir + "/manifest.json", Data: b})
		for _, bl := range blobs {
			out = append(out, sample.SideFile{Rel: dir + "/" + bl.Rel, Data: bl.Data})
		}
	}
	slices.SortStableFunc(cps, func(a, b Checkpoint) int { return a.Time.Compare(b.Time) })
	return out, cps, nil
}

// manifest renders a checkpoint's manifest.json in its shape, and its
// content-addressed copies (blobs/<sha256> for the seed's shape,
// files/<sha256> for Goat's), relative to the checkpoint's directory.
func manifest(cp *checkpoint) ([]byte, []sample.SideFile) {
	var blobs []sample.SideFile
	dir := "blobs/"
	if cp.goat {
		dir = "files/"
	}
	var files []any
	for _, f := range cp.files {
		hash := ""
		if f.exists {
			hash = sample.SHA256Hex(f.content)
			blobs = append(blobs, sample.SideFile{Rel: dir + hash, Data: []byte(f.content)})
		}
		if cp.goat {
			files = append(files, struct {
				Path   string `json:"path"`
				Exists bool   `json:"exists"`
				Hash   string `json:"hash"`
				Size   int    `json:"size"`
			}{f.path, f.exists, hash, len(f.content)})
		} else {
			files = append(files, struct {
				Path string `json:"path"`
				Hash string `json:"hash"`
			}{f.path, hash})
		}
	}
	var doc any = struct {
		ID        string `json:"checkpoint_id"`
		CreatedAt any    `json:"created_at"`
		Files     []any  `json:"files"`
	}{cp.id, cp.at, files}
	if cp.goat {
		doc = struct {
			ID        string `json:"user_message_uuid"`
			CreatedAt any    `json:"created_at"`
			Files     []any  `json:"files"`
		}{cp.id, cp.at, files}
	}
	b, _ := json.MarshalIndent(doc, "", "  ") // cannot fail: strings, a time, numbers
	return b, blobs
}
