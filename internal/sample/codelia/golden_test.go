package codelia

import (
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite testdata/corpus and testdata/truth.json")

const (
	goldenCorpus = "testdata/corpus"
	goldenTruth  = "testdata/truth.json"
)

// TestGolden keeps testdata/ equal to Generate(FixtureConfig()): the run
// files and the session snapshots under testdata/corpus, the truth in
// testdata/truth.json. Other packages use them as fixed fixtures. Run with
// -update to rewrite.
func TestGolden(t *testing.T) {
	c, err := Generate(FixtureConfig())
	require.NoError(t, err)
	truth, err := c.TruthJSON()
	require.NoError(t, err)
	if *update {
		require.NoError(t, os.RemoveAll(goldenCorpus))
		require.NoError(t, c.WriteTo(goldenCorpus))
		require.NoError(t, os.WriteFile(goldenTruth, truth, 0o644))
	}
	want, err := os.ReadFile(goldenTruth)
	require.NoError(t, err, "run go test ./internal/sample/codelia -run TestGolden -update")
	assert.Equal(t, string(want), string(truth))

	onDisk := map[string][]byte{}
	err = filepath.WalkDir(goldenCorpus, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(goldenCorpus, p)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		onDisk[filepath.ToSlash(rel)] = data
		return err
	})
	require.NoError(t, err)
	require.Len(t, onDisk, len(c.Files)+len(c.Side), "no stray or missing fixture files")
	for _, f := range c.Files {
		assert.Equal(t, string(f.Data), string(onDisk[f.Rel]), f.Rel)
	}
	for _, s := range c.Side {
		assert.Equal(t, string(s.Data), string(onDisk[s.Rel]), s.Rel)
	}
}
