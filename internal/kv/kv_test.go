package kv

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestList(t *testing.T) {
	assert.Equal(t, []string{"a", "b c", "d"}, List(" a,, b c ,d,"))
	assert.Nil(t, List(" , "))
}

func TestDirs(t *testing.T) {
	got, err := Dirs(" team-a=/data/a:/data/a2/ , team-b=/data/b,", "tenant")
	require.NoError(t, err)
	assert.Equal(t, map[string][]string{"team-a": {"/data/a", "/data/a2"}, "team-b": {"/data/b"}}, got)
	for _, bad := range []string{"team-a", "=/x", "team-a="} {
		_, err := Dirs(bad, "tenant")
		assert.ErrorContains(t, err, "is not tenant=/dir[:/dir2]", bad)
	}
}
