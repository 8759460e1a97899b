package unknown

import (
	"testing"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/integrity"
	"github.com/stretchr/testify/assert"
)

func TestJudge(t *testing.T) {
	j := New().NewJudge()
	var a integrity.Arena
	var ev format.Event
	j.Judge([]byte(`{"anything":[1,2]}`), nil, &a, &ev)
	assert.Equal(t, integrity.Valid, ev.Outcome)
	assert.Equal(t, "", ev.EventType, "ships as other")
	j.Judge([]byte(`{"torn":`), nil, &a, &ev)
	assert.Equal(t, integrity.Corrupt, ev.Outcome)
	assert.Equal(t, "not JSON", ev.CorruptReason)
	j.Judge([]byte(`[1]`), nil, &a, &ev)
	assert.Equal(t, "not a JSON object", ev.CorruptReason)
	_, ok := New().Claim("/x/y.jsonl")
	assert.False(t, ok)
}

func BenchmarkJudge(b *testing.B) {
	line := []byte(`{"kind":"message","seq":1,"text":"hello","nested":{"a":[1,2,3]}}`)
	j := New().NewJudge()
	var a integrity.Arena
	var ev format.Event
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	for b.Loop() {
		j.Judge(line, nil, &a, &ev)
	}
}
