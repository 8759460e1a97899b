package sample

import (
	"path/filepath"
	"time"

	"github.com/journalship/journalship/chunk"
)

// Chunks is the corpus's complete lines as Fluent Bit chunks of tail
// records read at time at, each at most max bytes, files one after the
// other as written under root: what a benchmark of the plugin flushes.
// It also returns the number of lines and their bytes.
func (c *Corpus) Chunks(root string, max int, at time.Time) (chunks [][]byte, lines, bytes int) {
	var data []byte
	for _, f := range c.Files {
		path := filepath.Join(root, filepath.FromSlash(f.Rel))
		for _, l := range f.Lines {
			next := chunk.AppendEvent(nil, chunk.TailEvent(chunk.DefaultConfig(), at, path, l.Offset, []byte(l.Text)), chunk.FormatV2)
			if len(data)+len(next) > max && len(data) > 0 {
				chunks, data = append(chunks, data), nil
			}
			data = append(data, next...)
			lines++
			bytes += len(l.Text)
		}
	}
	if len(data) > 0 {
		chunks = append(chunks, data)
	}
	return chunks, lines, bytes
}
