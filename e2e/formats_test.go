package e2e

import (
	"path/filepath"
	"testing"

	"github.com/journalship/journalship/chunk"
	"github.com/journalship/journalship/internal/lokiproc"
	"github.com/journalship/journalship/internal/sample"
	"github.com/journalship/journalship/internal/sample/kinds"
	"github.com/journalship/journalship/internal/verify"
	"github.com/stretchr/testify/require"
)

// mixedCorpus generates every format's test corpus (its Kind's Fixture),
// each under its own root (the Kind's DemoRoot), as one corpus whose
// paths are relative to the node's root.
func mixedCorpus(t *testing.T) *sample.Corpus {
	t.Helper()
	out := &sample.Corpus{}
	for _, k := range kinds.All() {
		c, err := k.Fixture()
		require.NoError(t, err, k.Format)
		for _, f := range c.Files {
			f.Rel = k.DemoRoot + "/" + f.Rel
			out.Files = append(out.Files, f)
		}
		for _, s := range c.Side {
			s.Rel = k.DemoRoot + "/" + s.Rel
			out.Side = append(out.Side, s)
		}
	}
	return out
}

// TestEveryFormatThroughThePlugin: a node running several runtimes side by
// side, each under its own root, tailed into one output. Every line must
// come back from the real Loki byte-exact under its own format label, with
// exactly the annotations and derived state its format's truth expects
// (never judged by another format's rules), and tokens by model must
// equal the truth's. Chunks are shuffled and some retried, as Fluent Bit
// does.
func TestEveryFormatThroughThePlugin(t *testing.T) {
	loki := lokiproc.ForTest(t, lokiproc.Config{})
	corpus := mixedCorpus(t)
	root := filepath.Join(t.TempDir(), "node")
	require.NoError(t, corpus.WriteTo(root))

	shipCorpus(t, corpus, root, delivery{url: loki.URL, node: "node-mixed", tag: "node.x", seed: 11,
		maxLines: 6, retryEvery: 7, formats: []chunk.Format{chunk.FormatV2}})
	// Its Claude Code sessions span more than Loki's window less
	// journalship's margin within one stream: those lines ship re-stamped,
	// their own time kept.
	verify.LandedRestamped(t, loki.URL, corpus, root, "node-mixed")
}
