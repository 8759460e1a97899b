package sample

import "encoding/json"

// jsonTruthFile and jsonTruthLine are the JSON form of the truth, without the
// bytes themselves (which are in the files).
type jsonTruthFile struct {
	Rel         string          `json:"rel"`
	Format      string          `json:"format,omitempty"`
	JobID       string          `json:"job_id"`
	RunID       string          `json:"run_id,omitempty"`
	SessionID   string          `json:"session_id"`
	Pod         string          `json:"pod"`
	AgentID     string          `json:"agent_id"`
	Size        int             `json:"size"`
	EndReason   string          `json:"end_reason"`
	PartialTail int             `json:"partial_tail_size"`
	Lines       []jsonTruthLine `json:"lines"`
}

type jsonTruthLine struct {
	Offset           int64    `json:"offset"`
	Length           int      `json:"length"`
	Type             string   `json:"type"`
	Seq              int64    `json:"seq"`
	Valid            bool     `json:"valid"`
	Corrupt          bool     `json:"corrupt"`
	Model            string   `json:"model,omitempty"`
	PromptTokens     int64    `json:"prompt_tokens,omitempty"`
	CompletionTokens int64    `json:"completion_tokens,omitempty"`
	CacheReadTokens  int64    `json:"cache_read_tokens,omitempty"`
	CacheWriteTokens int64    `json:"cache_write_tokens,omitempty"`
	Counted          bool     `json:"counted,omitempty"`
	State            string   `json:"state,omitempty"`
	Expect           []string `json:"expect,omitempty"`
}

type jsonTruthDoc struct {
	Files         []jsonTruthFile     `json:"files"`
	TokensByModel map[string][2]int64 `json:"tokens_by_model"`
}

// TruthJSON renders the truth as indented JSON: per file its identity,
// size, end reason and partial tail size (the tail is the file's last
// bytes), per line its offset, length (in
// bytes, without the newline), type, seq, validity, model, tokens and
// expected annotations, and the tokens by model. A generator's golden
// corpus keeps it in its testdata/truth.json (Kind.Golden).
func (c *Corpus) TruthJSON() ([]byte, error) {
	doc := jsonTruthDoc{Files: []jsonTruthFile{}, TokensByModel: c.TokensByModel()}
	if c != nil {
		for _, f := range c.Files {
			doc.Files = append(doc.Files, toTruthFile(f))
		}
	}
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
}

func toTruthFile(f File) jsonTruthFile {
	tf := jsonTruthFile{Rel: f.Rel, Format: f.Format, RunID: f.RunID, JobID: f.JobID, SessionID: f.SessionID, Pod: f.Pod, AgentID: f.AgentID,
		Size: len(f.Data), EndReason: f.EndReason, PartialTail: len(f.PartialTail), Lines: make([]jsonTruthLine, 0, len(f.Lines))}
	for _, l := range f.Lines {
		tf.Lines = append(tf.Lines, jsonTruthLine{Offset: l.Offset, Length: len(l.Text), Type: l.Type, Seq: l.Seq,
			Valid: l.Valid, Corrupt: l.Corrupt, Model: l.Model, PromptTokens: l.PromptTokens,
			CompletionTokens: l.CompletionTokens, CacheReadTokens: l.CacheReadTokens, CacheWriteTokens: l.CacheWriteTokens,
			Counted: l.Counted, State: l.State, Expect: l.Expect})
	}
	return tf
}
