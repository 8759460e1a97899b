package pricing

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type logSink struct{ lines []string }

func (l *logSink) Infof(f string, a ...any) { l.lines = append(l.lines, "info: "+fmt.Sprintf(f, a...)) }
func (l *logSink) Errorf(f string, a ...any) {
	l.lines = append(l.lines, "error: "+fmt.Sprintf(f, a...))
}

func table(in float64) string {
	return fmt.Sprintf("models:\n  m: {input_usd_per_million: %v, output_usd_per_million: 1}\n", in)
}

func price(t *testing.T, s *Source) float64 {
	t.Helper()
	p, ok := s.Lookup("", "m")
	require.True(t, ok)
	return p.InputPerMillion
}

func TestSourceBuiltIn(t *testing.T) {
	s, err := Open(DefaultConfig(), nil)
	require.NoError(t, err)
	defer s.Close()
	_, ok := s.Lookup("", "gemini-2.5-pro")
	assert.True(t, ok)
}

func TestSourceReloadsOnChangeAndKeepsTheLastGoodTable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "prices.yaml")
	require.NoError(t, os.WriteFile(path, []byte(table(1)), 0o644))
	cfg := DefaultConfig()
	cfg.Path, cfg.ReloadInterval = path, time.Hour // Check is called by hand
	log := &logSink{}
	s, err := Open(cfg, log)
	require.NoError(t, err)
	defer s.Close()
	assert.Equal(t, 1.0, price(t, s))

	s.Check() // unchanged: nothing happens
	assert.Zero(t, s.Reloads.Load())

	require.NoError(t, os.WriteFile(path, []byte(table(2)+"# longer\n"), 0o644))
	s.Check()
	assert.Equal(t, 2.0, price(t, s))
	assert.EqualValues(t, 1, s.Reloads.Load())

	require.NoError(t, os.WriteFile(path, []byte("models: {m: {input_usd_per_million: oops}}\n"), 0o644))
	s.Check()
	assert.Equal(t, 2.0, price(t, s), "a broken file leaves the last good table")
	assert.EqualValues(t, 1, s.Failed.Load())
	require.NotEmpty(t, log.lines)
	assert.Contains(t, log.lines[len(log.lines)-1], path)

	require.NoError(t, os.Remove(path))
	s.Check()
	assert.Equal(t, 2.0, price(t, s), "a missing file leaves the last good table")
	assert.EqualValues(t, 2, s.Failed.Load())
	logged := len(log.lines)
	s.Check()
	assert.EqualValues(t, 3, s.Failed.Load(), "still missing: counted again")
	assert.Len(t, log.lines, logged, "but logged once")
}

// A Kubernetes ConfigMap volume updates by swapping a symlink.
func TestSourceFollowsAConfigMapSwap(t *testing.T) {
	dir := t.TempDir()
	for i, in := range []float64{1, 3} {
		d := filepath.Join(dir, fmt.Sprintf("..v%d", i))
		require.NoError(t, os.Mkdir(d, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(d, "prices.yaml"), []byte(table(in)), 0o644))
	}
	require.NoError(t, os.Symlink("..v0", filepath.Join(dir, "..data")))
	require.NoError(t, os.Symlink("..data/prices.yaml", filepath.Join(dir, "prices.yaml")))
	cfg := DefaultConfig()
	cfg.Path, cfg.ReloadInterval = filepath.Join(dir, "prices.yaml"), 100*time.Millisecond
	s, err := Open(cfg, nil)
	require.NoError(t, err)
	defer s.Close()
	assert.Equal(t, 1.0, price(t, s))

	tmp := filepath.Join(dir, "..data_tmp")
	require.NoError(t, os.Symlink("..v1", tmp))
	require.NoError(t, os.Rename(tmp, filepath.Join(dir, "..data")))
	assert.Eventually(t, func() bool { return price(t, s) == 3 }, 5*time.Second, 20*time.Millisecond,
		"the watcher picks up the swapped file")
}

func TestOpenFailsOnABadFile(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Path = filepath.Join(t.TempDir(), "missing.yaml")
	_, err := Open(cfg, nil)
	var te *TableError
	require.ErrorAs(t, err, &te)
	assert.True(t, te.Permanent())
	assert.Contains(t, err.Error(), "missing.yaml")

	cfg.ReloadInterval = time.Millisecond
	_, err = Open(cfg, nil)
	assert.ErrorContains(t, err, "reload interval")
}

func TestOnLoadSeesTheFirstTableAndEveryReload(t *testing.T) {
	path := filepath.Join(t.TempDir(), "prices.yaml")
	require.NoError(t, os.WriteFile(path, []byte(table(1)), 0o644))
	cfg := DefaultConfig()
	cfg.Path, cfg.ReloadInterval = path, time.Hour
	s, err := Open(cfg, nil)
	require.NoError(t, err)
	defer s.Close()
	var seen [][]string
	s.OnLoad(func(tab *Table) { seen = append(seen, tab.ModelsFor("")) })
	require.NoError(t, os.WriteFile(path, []byte("models:\n  m: {input_usd_per_million: 1, output_usd_per_million: 1}\n  n: {input_usd_per_million: 2, output_usd_per_million: 2}\n"), 0o644))
	s.Check()
	require.NoError(t, os.WriteFile(path, []byte("broken: ["), 0o644))
	s.Check() // a failed reload calls nothing
	assert.Equal(t, [][]string{{"m"}, {"m", "n"}}, seen)
}
