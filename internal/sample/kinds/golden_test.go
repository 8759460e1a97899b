package kinds

import (
	"flag"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/journalship/journalship/internal/sample"
)

var update = flag.Bool("update", false, "rewrite each generator's testdata/corpus and testdata/truth.json")

// TestGolden keeps each generator's testdata/ (Kind.Golden) equal to its
// Fixture; other packages read those files as fixed fixtures. Run with
// -update to rewrite.
func TestGolden(t *testing.T) {
	golden := 0
	for _, k := range All() {
		if k.Golden == "" {
			continue
		}
		golden++
		t.Run(k.Format, func(t *testing.T) {
			c, err := k.Fixture()
			require.NoError(t, err)
			dir := filepath.Join("..", k.Golden, "testdata")
			diffs, err := c.GoldenDiff(filepath.Join(dir, "corpus"), filepath.Join(dir, "truth.json"), *update)
			require.NoError(t, err, "run go test ./internal/sample/kinds -run TestGolden -update")
			assert.Empty(t, diffs, "%s is not the %s Fixture; rerun with -update if intended", dir, k.Format)
		})
	}
	assert.Positive(t, golden)
	// Every golden copy on disk is some Kind's: none goes stale unchecked.
	copies, err := filepath.Glob(filepath.Join("..", "*", "testdata", "truth.json"))
	require.NoError(t, err)
	for _, c := range copies {
		dir := filepath.Base(filepath.Dir(filepath.Dir(c)))
		assert.True(t, slices.ContainsFunc(All(), func(k sample.Kind) bool { return k.Golden == dir }),
			"%s: no Kind has Golden %q", c, dir)
	}
	assert.Len(t, copies, golden)
}
