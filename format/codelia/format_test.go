package codelia

import (
	"testing"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/format/formattest"
	"github.com/journalship/journalship/integrity"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var _ format.Format = (*Format)(nil)

func TestConfig(t *testing.T) {
	require.NoError(t, DefaultConfig().Validate())
	for _, bad := range []Config{
		{MaxOpenRequests: 1},
		{KnownSchemaVersions: []int64{0}, MaxOpenRequests: 1},
		{KnownSchemaVersions: []int64{1}},
	} {
		assert.Error(t, bad.Validate())
		_, err := NewWith(bad)
		assert.Error(t, err)
	}
	f, err := NewWith(Config{KnownSchemaVersions: []int64{1, 2}, MaxOpenRequests: 8})
	require.NoError(t, err)
	evs := judgeWith(f, formattest.Mutate(t, valid["header"], "schema_version", 2))
	assert.Zero(t, evs.Flags&format.BestEffort, "version 2 is known here")
}

func judgeWith(f *Format, line string) format.Event {
	var a integrity.Arena
	var ev format.Event
	f.NewJudge().Judge([]byte(line), f.NewState(format.Path{}), &a, &ev)
	return ev
}

func TestDescription(t *testing.T) {
	f := New()
	assert.Equal(t, "codelia", f.Name())
	assert.Equal(t, []string{"header", "run.start", "run.context", "agent.event", "tool.output",
		"llm.request", "llm.response", "run.status", "run.error", "run.end"}, f.EventTypes())
	f.EventTypes()[0] = "changed"
	assert.Equal(t, "header", f.EventTypes()[0], "callers get a copy")
	assert.Len(t, f.Annotations(), 15)
	assert.NotEmpty(t, f.Layouts())
	assert.Equal(t, format.SeqRule{Used: false}, f.Seq())
	assert.Equal(t, format.ScopeAllLines, f.Scope())
}

func TestSniff(t *testing.T) {
	f := New()
	assert.True(t, f.Sniff([]byte(valid["header"])))
	assert.True(t, f.Sniff([]byte(`{"type":"header","schema_version":3,"run_id":"r"}`)), "any version, nothing else needed")
	assert.True(t, f.Sniff([]byte(valid["llm.request"])), "a lost header: a known type with a run_id")
	assert.False(t, f.Sniff([]byte(`{"type":"header","run_id":"r"}`)), "no schema_version")
	assert.False(t, f.Sniff([]byte(`{"type":"header","schema_version":"1","run_id":"r"}`)))
	assert.False(t, f.Sniff([]byte(`{"type":"header","schema_version":1}`)), "no run_id")
	assert.False(t, f.Sniff([]byte(`{"type":"run.end","outcome":"completed"}`)))
	assert.False(t, f.Sniff([]byte(`{"type":"x.acme.y","run_id":"r"}`)))
	assert.False(t, f.Sniff([]byte(`{"type":"SESSION_START","timestamp":"2026-02-03T12:00:00Z","job_id":"x","seq":0}`)))
	assert.False(t, f.Sniff([]byte(`not json`)))
	assert.False(t, f.Sniff(nil))
}
