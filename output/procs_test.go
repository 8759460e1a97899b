package output

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestUseOneProc(t *testing.T) {
	was := runtime.GOMAXPROCS(0)
	t.Cleanup(func() { runtime.GOMAXPROCS(was) })
	runtime.GOMAXPROCS(3)
	env := map[string]string{"GOMAXPROCS": "3"}
	assert.Equal(t, 3, UseOneProc(func(k string) string { return env[k] }), "the environment's choice stands")
	assert.Equal(t, 3, runtime.GOMAXPROCS(0))
	assert.Equal(t, 1, UseOneProc(func(string) string { return "" }))
	assert.Equal(t, 1, runtime.GOMAXPROCS(0))
}
