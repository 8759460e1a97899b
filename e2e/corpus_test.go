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
	"github.com/journalship/journalship/internal/sample/cortex"
	"github.com/journalship/journalship/internal/verify"
	"github.com/journalship/journalship/output"
	"github.com/stretchr/testify/require"
)

// TestCorpusThroughThePlugin ships a generated corpus (crashes, lost
// events, torn writes, schema violations, unknown types, several models)
// through the .so as Fluent Bit would: tail chunks of 1 to 8 lines in every
// layout, flushed from two threads at a time in shuffled order, some chunks
// twice (a retry). Every line must come back from the real Loki byte-exact
// with its metadata and exactly the annotations the corpus's truth expects,
// and tokens by model must equal the corpus's.
func TestCorpusThroughThePlugin(t *testing.T) {
	loki := lokiproc.ForTest(t, lokiproc.Config{})
	cfg := cortex.DefaultConfig()
	cfg.Seed, cfg.Jobs = 42, 8
	corpus, err := cortex.Generate(cfg)
	require.NoError(t, err)
	root := filepath.Join(t.TempDir(), "sessions")
	require.NoError(t, corpus.WriteTo(root))

	shipCorpus(t, corpus, root, delivery{
		url: loki.URL, node: "node-e2e", tag: "sessions.x", seed: 42, maxLines: 8, retryEvery: 5,
		formats: []chunk.Format{chunk.FormatV2, chunk.FormatV1, chunk.FormatV2Direct},
	})
	verify.Landed(t, loki.URL, corpus, root, "node-e2e")
}

// delivery is how shipCorpus hands a corpus to the plugin.
type delivery struct {
	url, node, tag string
	seed           int64
	maxLines       int            // lines per chunk: 1 to maxLines
	retryEvery     int            // every retryEvery-th chunk is flushed twice
	formats        []chunk.Format // each chunk in one of these, at random
	props          []string       // more output properties, key and value
}

// shipCorpus ships every complete line of corpus (written under root) through
// the .so as Fluent Bit would: tail chunks in shuffled order, flushed from
// two threads at a time, some chunks twice (a retry). Every flush must
// succeed.
func shipCorpus(t *testing.T, corpus *sample.Corpus, root string, d delivery) {
	t.Helper()
	rng := rand.New(rand.NewSource(d.seed))
	var chunks []string
	for _, f := range corpus.Files {
		path := filepath.Join(root, f.Rel)
		for i := 0; i < len(f.Lines); {
			n := 1 + rng.Intn(d.maxLines)
			var evs []chunk.Event
			for _, l := range f.Lines[i:min(i+n, len(f.Lines))] {
				evs = append(evs, chunk.TailEvent(chunk.DefaultConfig(), time.Now(), path, l.Offset, []byte(l.Text)))
			}
			chunks = append(chunks, writeChunk(t, d.formats[rng.Intn(len(d.formats))], evs...))
			i += n
		}
	}
	rng.Shuffle(len(chunks), func(i, j int) { chunks[i], chunks[j] = chunks[j], chunks[i] })

	var script strings.Builder
	script.WriteString(instanceScript("a", append(append(propsFor(t, d.url), "Node_Name", d.node), d.props...)...))
	script.WriteString("init a\n")
	for i, c := range chunks {
		fmt.Fprintf(&script, "flushbg a %s %s expect %d\n", c, d.tag, output.OK)
		if i%2 == 1 {
			script.WriteString("wait\n")
		}
		if i%d.retryEvery == 0 { // Fluent Bit retrying a chunk it already delivered
			fmt.Fprintf(&script, "flush a %s %s expect %d\n", c, d.tag, output.OK)
		}
	}
	script.WriteString("wait\nexit a\nunregister\n")
	stdout, err := runHost(t, script.String())
	require.NoError(t, err, stdout)
	require.True(t, strings.HasSuffix(stdout, "closed failed=0\n"), stdout)
}
