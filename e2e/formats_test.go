package e2e

import (
	"path/filepath"
	"testing"

	"github.com/journalship/journalship/chunk"
	"github.com/journalship/journalship/internal/lokiproc"
	"github.com/journalship/journalship/internal/sample"
	"github.com/journalship/journalship/internal/sample/claudecode"
	"github.com/journalship/journalship/internal/sample/codelia"
	"github.com/journalship/journalship/internal/sample/gosession"
	"github.com/journalship/journalship/internal/sample/orbitmesh"
	"github.com/journalship/journalship/internal/verify"
	"github.com/stretchr/testify/require"
)

// mixedCorpus generates every format's corpus, each under its own root
// (cortex/, codelia/, orbitmesh/, claude/projects/, go-session/), as one corpus whose paths are relative to the
// node's root.
func mixedCorpus(t *testing.T) *sample.Corpus {
	t.Helper()
	ccfg := sample.DefaultConfig()
	ccfg.Seed, ccfg.Jobs = 7, 4
	cortex, err := sample.Generate(ccfg)
	require.NoError(t, err)
	ocfg := orbitmesh.DefaultConfig()
	ocfg.Seed = 7
	om, err := orbitmesh.Generate(ocfg)
	require.NoError(t, err)
	dcfg := codelia.DefaultConfig()
	dcfg.Seed = 7
	cd, err := codelia.Generate(dcfg)
	require.NoError(t, err)
	kcfg := claudecode.DefaultConfig()
	kcfg.Seed = 7
	cc, err := claudecode.Generate(kcfg)
	require.NoError(t, err)
	gcfg := gosession.DefaultConfig()
	gcfg.Seed = 7
	gs, err := gosession.Generate(gcfg)
	require.NoError(t, err)
	out := &sample.Corpus{}
	for dir, c := range map[string]*sample.Corpus{"cortex": cortex, "orbitmesh": om, "codelia": cd, "claude/projects": cc, "go-session": gs} {
		for _, f := range c.Files {
			f.Rel = dir + "/" + f.Rel
			out.Files = append(out.Files, f)
		}
		for _, s := range c.Side {
			s.Rel = dir + "/" + s.Rel
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
