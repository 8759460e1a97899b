package e2e

import (
	"fmt"
	"math/rand"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/journalship/journalship/chunk"
	"github.com/journalship/journalship/internal/lokiproc"
	"github.com/journalship/journalship/internal/sample"
	"github.com/journalship/journalship/internal/sample/orbitmesh"
	"github.com/journalship/journalship/internal/verify"
	"github.com/journalship/journalship/output"
	"github.com/stretchr/testify/require"
)

// mixedCorpus generates every format's corpus, each under its own root
// (cortex/, orbitmesh/), as one corpus whose paths are relative to the
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
	out := &sample.Corpus{}
	for dir, c := range map[string]*sample.Corpus{"cortex": cortex, "orbitmesh": om} {
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

	rng := rand.New(rand.NewSource(11))
	var chunks []string
	for _, f := range corpus.Files {
		path := filepath.Join(root, f.Rel)
		for i := 0; i < len(f.Lines); {
			n := 1 + rng.Intn(6)
			var evs []chunk.Event
			for _, l := range f.Lines[i:min(i+n, len(f.Lines))] {
				evs = append(evs, chunk.TailEvent(chunk.DefaultConfig(), time.Now(), path, l.Offset, []byte(l.Text)))
			}
			chunks = append(chunks, writeChunk(t, chunk.FormatV2, evs...))
			i += n
		}
	}
	rng.Shuffle(len(chunks), func(i, j int) { chunks[i], chunks[j] = chunks[j], chunks[i] })

	var script strings.Builder
	script.WriteString(instanceScript("a", append(propsFor(t, loki.URL), "Node_Name", "node-mixed")...))
	script.WriteString("init a\n")
	for i, c := range chunks {
		fmt.Fprintf(&script, "flushbg a %s node.x expect %d\n", c, output.OK)
		if i%2 == 1 {
			script.WriteString("wait\n")
		}
		if i%7 == 0 {
			fmt.Fprintf(&script, "flush a %s node.x expect %d\n", c, output.OK)
		}
	}
	script.WriteString("wait\nexit a\nunregister\n")
	stdout, err := runHost(t, script.String())
	require.NoError(t, err, stdout)
	require.True(t, strings.HasSuffix(stdout, "closed failed=0\n"), stdout)

	verify.Landed(t, loki.URL, corpus, root, "node-mixed")
}
