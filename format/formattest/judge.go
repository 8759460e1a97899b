package formattest

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/integrity"
	"github.com/stretchr/testify/require"
)

// JudgeLines judges lines in order with j into st and returns copies of
// the events (their violations copied too).
func JudgeLines(j format.Judge, st format.State, lines ...string) []format.Event {
	a := integrity.NewArena(1 << 16)
	out := make([]format.Event, 0, len(lines))
	var ev format.Event
	for _, l := range lines {
		j.Judge([]byte(l), st, a, &ev)
		e := ev
		e.Violations = slices.Clone(ev.Violations)
		out = append(out, e)
	}
	return out
}

// JudgeLine judges one line with j into st (nil: without a state) and
// returns the event, its violations copied.
func JudgeLine(j format.Judge, st format.State, line string) format.Event {
	var a integrity.Arena
	var ev format.Event
	j.Judge([]byte(line), st, &a, &ev)
	ev.Violations = slices.Clone(ev.Violations)
	return ev
}

// Del is the value with which Mutate removes a field.
var Del = &struct{}{}

// Mutate sets (or, with Del, removes) the dotted path of a JSON object
// line, creating objects on the way.
func Mutate(t testing.TB, line, path string, v any) string {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal([]byte(line), &m))
	keys := strings.Split(path, ".")
	o := m
	for _, k := range keys[:len(keys)-1] {
		next, ok := o[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			o[k] = next
		}
		o = next
	}
	if v == Del {
		delete(o, keys[len(keys)-1])
	} else {
		o[keys[len(keys)-1]] = v
	}
	b, err := json.Marshal(m)
	require.NoError(t, err)
	return string(b)
}
