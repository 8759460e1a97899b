package redact

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLoadOrCreateKey(t *testing.T) {
	path := filepath.Join(t.TempDir(), "redact.key")
	key, err := LoadOrCreateKey(path)
	require.NoError(t, err)
	assert.Len(t, key, KeySize)
	fi, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	again, err := LoadOrCreateKey(path)
	require.NoError(t, err)
	assert.Equal(t, key, again, "the key is kept")
	left, err := filepath.Glob(filepath.Join(filepath.Dir(path), ".*tmp*"))
	require.NoError(t, err)
	assert.Empty(t, left, "no temporary file left")

	other, err := LoadOrCreateKey(filepath.Join(t.TempDir(), "redact.key"))
	require.NoError(t, err)
	assert.NotEqual(t, key, other, "random")
}

func TestLoadOrCreateKeyRefusesUnsafeFiles(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		data []byte
		mode os.FileMode
		want string
	}{
		{"short", make([]byte, KeySize-1), 0o600, "fewer than 32"},
		{"group readable", make([]byte, KeySize), 0o640, "group or others"},
		{"world readable", make([]byte, KeySize), 0o604, "group or others"},
		{"too long", make([]byte, 5000), 0o600, "more than"},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, c.name)
			require.NoError(t, os.WriteFile(path, c.data, 0o600))
			require.NoError(t, os.Chmod(path, c.mode))
			_, err := LoadOrCreateKey(path)
			var ke *KeyError
			require.True(t, errors.As(err, &ke), "%v", err)
			assert.Equal(t, path, ke.Path)
			assert.Contains(t, err.Error(), c.want)
			data, _ := os.ReadFile(path)
			assert.Equal(t, c.data, data, "a refused file is left as it is")
		})
	}
	_, err := LoadOrCreateKey(dir)
	var ke *KeyError
	assert.ErrorAs(t, err, &ke, "a directory is no key")
	_, err = LoadOrCreateKey(filepath.Join(dir, "missing", "redact.key"))
	assert.ErrorAs(t, err, &ke, "a missing directory is not created")

	// New names the key file in its error.
	_, err = New(Config{Enabled: true, Hash: true, KeyFile: filepath.Join(dir, "short")})
	assert.ErrorAs(t, err, &ke)
}

func TestLoadOrCreateKeyConcurrently(t *testing.T) {
	path := filepath.Join(t.TempDir(), "redact.key")
	keys := make([][]byte, 8)
	var wg sync.WaitGroup
	for i := range keys {
		wg.Go(func() {
			k, err := LoadOrCreateKey(path)
			assert.NoError(t, err)
			keys[i] = k
		})
	}
	wg.Wait()
	for _, k := range keys[1:] {
		assert.Equal(t, keys[0], k, "one key wins, all use it")
	}
}

func TestHashMode(t *testing.T) {
	dir := t.TempDir()
	hashed := func(keyFile string) *Redactor {
		return newRedactor(t, func(c *Config) { c.Hash, c.KeyFile = true, filepath.Join(dir, keyFile) })
	}
	a, b := hashed("a.key"), hashed("b.key")
	token := regexp.MustCompile(`<REDACTED-SECRET:github-pat:([0-9a-f]{16})>`)
	const other = "ghp_Q4mXw8Lr2Zp6Vt0Kb3Nc7Hs1Jd5Fg9Ay2Ue4"
	tag := func(r *Redactor, line string) string {
		out, _ := redactOne(t, r, line)
		m := token.FindStringSubmatch(out)
		require.NotNil(t, m, "%s", out)
		return m[1]
	}
	first := tag(a, `{"a":"`+ghp+`"}`)
	assert.Equal(t, first, tag(a, `{"b":{"c":"export T=`+ghp+`\n"}}`), "the same secret, the same tag")
	assert.NotEqual(t, first, tag(a, `{"a":"`+other+`"}`), "another secret, another tag")
	assert.NotEqual(t, first, tag(b, `{"a":"`+ghp+`"}`), "another key, another tag")
	assert.Equal(t, first, tag(hashed("a.key"), `{"a":"`+ghp+`"}`), "the key file is kept across restarts")
	assert.NotContains(t, first, "dzqb5j")
}
