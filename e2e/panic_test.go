package e2e

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/journalship/journalship/chunk"
	"github.com/journalship/journalship/internal/lokiquery"
	"github.com/journalship/journalship/output"
)

// panicMarker is output.PanicTestMarker, which exists only in the
// journalship_panictest build: in a record's line it makes that build's
// flush panic, as Node_Name its init.
const panicMarker = "JOURNALSHIP-PANIC-TEST-MARKER"

// panicsBeforeDeadLetter is output's bound: a chunk that panicked this many
// times is dead-lettered.
const panicsBeforeDeadLetter = 3

var panicPlugin struct {
	once sync.Once
	path string
	err  error
}

// pluginThatPanics returns the plugin built with -tags journalship_panictest,
// built once on demand.
func pluginThatPanics(t testing.TB) string {
	t.Helper()
	panicPlugin.once.Do(func() {
		panicPlugin.path, panicPlugin.err = buildPlugin(bins.root,
			filepath.Join(bins.workDir, "out_journalship_panictest.so"), nil, "journalship_panictest")
	})
	if panicPlugin.err != nil {
		t.Fatalf("building the journalship_panictest plugin: %v", panicPlugin.err)
	}
	return panicPlugin.path
}

// TestPanicInFlushIsRetriedThenDeadLettered drives a plugin whose flush
// panics on a marked record through the C host: the poisoned chunk is
// answered FLB_RETRY until it has panicked the bound's number of times,
// then FLB_OK with the chunk in the dead-letter file; the host survives
// every panic, and a healthy chunk flushed in between reaches the real
// Loki.
func TestPanicInFlushIsRetriedThenDeadLettered(t *testing.T) {
	plugin := pluginThatPanics(t)
	loki := lokiFor(t)
	poisonJournal, goodJournal := journalPath(t), journalPath(t)
	poisonEvs := journalEvents(t, poisonJournal, 21, 4, false)
	marked := chunk.TailEvent(chunk.DefaultConfig(), time.Now(), poisonJournal, 7777, []byte(`{"type":"TOOL_CALL","note":"`+panicMarker+`"}`))
	poison, err := os.ReadFile(writeChunk(t, chunk.FormatV2, append(poisonEvs, marked)...))
	require.NoError(t, err)
	poisonPath := writeBytes(t, poison)
	goodEvs := journalEvents(t, goodJournal, 22, 10, false)
	goodPath := writeChunk(t, chunk.FormatV1, goodEvs...)
	props := propsFor(t, loki.URL)
	dlPath := props[5]

	script := []string{"init a expect 1"}
	for n := 1; n <= panicsBeforeDeadLetter; n++ {
		want := output.Retry
		if n == panicsBeforeDeadLetter {
			want = output.OK
		}
		script = append(script, fmt.Sprintf("flush a %s sessions.poison expect %d", poisonPath, want))
		if n == 1 {
			script = append(script, fmt.Sprintf("flush a %s sessions.good expect %d", goodPath, output.OK))
		}
	}
	script = append(script, "exit a expect 1", "unregister")
	res := runHostWith(t, hostRun{Plugin: plugin, Script: instanceScript("a", props...) + lines(script...)})
	require.NoError(t, res.Err, "the host survives every panic")
	assert.Equal(t, []int{output.Retry, output.OK, output.Retry, output.OK}, rcs(res.Stdout, "flush a"))
	assert.True(t, strings.HasSuffix(res.Stdout, "closed failed=0\n"), res.Stdout)

	// The log names the tag and the record at fault, with the stack.
	assert.Contains(t, res.Stderr, fmt.Sprintf(`flush panicked tag=sessions.poison while decoding record 4 (file=%q offset=7777)`, poisonJournal))
	assert.Contains(t, res.Stderr, fmt.Sprintf("panic 1 of %d", panicsBeforeDeadLetter))
	assert.Contains(t, res.Stderr, "goroutine ")

	dls := deadLetters(t, dlPath)
	require.Len(t, dls, 1, "one dead letter: the whole chunk, once")
	assert.Equal(t, "panic", dls[0]["stage"])
	assert.Equal(t, "sessions.poison", dls[0]["tag"])
	assert.Equal(t, poisonJournal, dls[0]["file"])
	raw, err := base64.StdEncoding.DecodeString(dls[0]["line"].(string))
	require.NoError(t, err)
	assert.Equal(t, poison, raw)

	got := distinctLines(landed(t, loki.URL, `{service_name="agent-sessions"}`, goodJournal, len(goodEvs)))
	for _, l := range lineTexts(goodEvs) {
		assert.True(t, got[l], "the healthy chunk is in Loki: %s", l)
	}
	q := &lokiquery.Client{URL: loki.URL}
	none, err := q.QueryRange(context.Background(), `{service_name="agent-sessions"} | file="`+poisonJournal+`"`,
		time.Now().Add(-time.Hour), time.Now().Add(time.Minute), 100, "forward")
	require.NoError(t, err)
	assert.Empty(t, none, "the poisoned chunk went to the dead-letter file, not to Loki")
}

// TestPanicInInitFailsTheInstance: a panic in FLBPluginInit answers
// FLB_ERROR (Fluent Bit reports the instance failed) instead of ending the
// host, and another instance of the same process starts and exits as
// usual.
func TestPanicInInitFailsTheInstance(t *testing.T) {
	plugin := pluginThatPanics(t)
	unreachable := "http://127.0.0.1:1" // neither instance pushes
	script := instanceScript("bad", append(propsFor(t, unreachable), "Node_Name", panicMarker)...) +
		instanceScript("good", propsFor(t, unreachable)...) + lines(
		fmt.Sprintf("init bad expect %d", output.Error),
		fmt.Sprintf("init good expect %d", output.OK),
		fmt.Sprintf("flush good %s journal.empty expect %d", writeBytes(t, nil), output.OK),
		fmt.Sprintf("exit bad expect %d", output.OK), // a NULL context, as Fluent Bit passes it
		fmt.Sprintf("exit good expect %d", output.OK),
		"unregister",
	)
	res := runHostWith(t, hostRun{Plugin: plugin, Script: script})
	require.NoError(t, res.Err, "the host survives the panic")
	assert.Equal(t, lines(
		"register rc=0 name="+output.PluginName,
		fmt.Sprintf("init bad rc=%d", output.Error),
		fmt.Sprintf("init good rc=%d", output.OK),
		fmt.Sprintf("flush good rc=%d", output.OK),
		fmt.Sprintf("exit bad rc=%d", output.OK),
		fmt.Sprintf("exit good rc=%d", output.OK),
		"unregister",
		"closed failed=0",
	), res.Stdout)
	assert.Contains(t, res.Stderr, "init panicked building the instance: journalship_panictest: Node_Name is "+panicMarker)
	assert.Contains(t, res.Stderr, "goroutine ")
}

// deadLetters reads the dead-letter file at path.
func deadLetters(t *testing.T, path string) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &m), l)
		out = append(out, m)
	}
	return out
}
