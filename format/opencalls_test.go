package format

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOpenCalls: calls are listed up to the bound and counted past it,
// answered ones leave the list, the rest are told in the order they were
// issued, and issuing into answered entries allocates nothing.
func TestOpenCalls(t *testing.T) {
	var o OpenCalls
	assert.Nil(t, o.Sentences("call", "calls"))
	require.True(t, o.Issue(1, []byte("a"), []byte("Bash"), 7, 3))
	require.True(t, o.Issue(2, []byte("b"), nil, 0, 3))
	require.True(t, o.Issue(3, []byte("c"), []byte("Read"), 0, 3))
	assert.False(t, o.Issue(4, []byte("d"), nil, 0, 3), "past the bound")
	assert.Equal(t, int64(1), o.Untracked())
	assert.Equal(t, -1, o.Find(4))

	i := o.Find(1)
	require.GreaterOrEqual(t, i, 0)
	assert.Equal(t, uint32(7), o.At(i).Extra)
	c := o.Answer(i)
	assert.Equal(t, "Bash", string(c.Name), "valid until the next Issue")
	assert.Equal(t, 2, o.Len())
	assert.Equal(t, []string{
		"call b was never answered",
		"call c (Read) was never answered",
		"1 more calls were never answered",
	}, o.Sentences("call", "calls"))

	o.AnswerUntracked()
	o.AnswerUntracked()
	assert.Zero(t, o.Untracked(), "never below zero")

	id, name := []byte("e"), []byte("Edit")
	allocs := testing.AllocsPerRun(100, func() {
		o.Issue(5, id, name, 0, 3)
		o.Answer(o.Find(5))
	})
	assert.Zero(t, allocs)
	assert.Equal(t, []string{"call b was never answered", "call c (Read) was never answered"}, o.Sentences("call", "calls"))
}
