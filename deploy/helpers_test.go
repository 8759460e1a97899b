package deploy

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// The repository root, seen from this package's directory.
const repo = ".."

const (
	modulePath   = "github.com/journalship/journalship"
	daemonsetDir = "daemonset"
	priceFile    = "Price_File" // shown commented: the built-in table is the default
)

func readFile(t *testing.T, rel string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repo, rel))
	require.NoError(t, err)
	return data
}
