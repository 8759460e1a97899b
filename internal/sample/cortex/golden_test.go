package cortex

import (
	"flag"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite testdata/corpus and testdata/truth.json")

const (
	goldenCorpus = "testdata/corpus"
	goldenTruth  = "testdata/truth.json"
)

// TestGolden keeps testdata/ equal to Generate(FixtureConfig()); other
// packages use those files as fixed fixtures. Run with -update to rewrite.
func TestGolden(t *testing.T) {
	c, err := Generate(FixtureConfig())
	require.NoError(t, err)
	diffs, err := c.GoldenDiff(goldenCorpus, goldenTruth, *update)
	require.NoError(t, err, "run go test ./internal/sample/cortex -run TestGolden -update")
	assert.Empty(t, diffs, "testdata/ is not Generate(FixtureConfig()); rerun with -update if intended")
}
