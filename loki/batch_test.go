package loki

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBatchGroupsByCanonicalLabels(t *testing.T) {
	b := NewBatch()
	ts := fixtureBase
	require.NoError(t, b.Add([]Label{{"b", "2"}, {"a", "1"}}, Entry{Timestamp: ts, Line: "x", Ref: 0}))
	require.NoError(t, b.Add([]Label{{"c", "3"}}, Entry{Timestamp: ts, Line: "y", Ref: 1}))
	require.NoError(t, b.Add([]Label{{"a", "1"}, {"b", "2"}, {"e", ""}}, Entry{Timestamp: ts, Line: "z", Ref: 2}))
	assert.Equal(t, 3, b.Len())
	require.Equal(t, 2, b.Streams())
	assert.Equal(t, `{a="1", b="2"}`, b.streams[0].key)
	assert.Equal(t, []int{0, 2}, b.streams[0].refs)
	assert.Equal(t, "z", b.streams[0].entries[1].Line)
	assert.Equal(t, `{c="3"}`, b.streams[1].key)
}

func TestBatchResetReusesMemory(t *testing.T) {
	b := fixtureBatch(t)
	keys := []string{}
	for _, s := range b.streams {
		keys = append(keys, s.key)
	}
	b.Reset()
	assert.Equal(t, 0, b.Len())
	assert.Equal(t, 0, b.Streams())
	allocs := testing.AllocsPerRun(20, func() {
		b.Reset()
		for ref, fe := range fixtureEntries {
			if err := b.Add(fe.labels, Entry{Timestamp: fixtureBase.Add(fe.offset), Line: fe.line, Metadata: fe.md, Ref: ref}); err != nil {
				t.Fatal(err)
			}
		}
	})
	assert.Zero(t, allocs, "steady-state Add must not allocate")
	for i, s := range b.streams {
		assert.Equal(t, keys[i], s.key)
	}
	assert.Equal(t, len(fixtureEntries), b.Len())
}

func TestBatchAddRejectsBadInput(t *testing.T) {
	ok := []Label{{"job", "x"}}
	tests := []struct {
		name   string
		labels []Label
		entry  Entry
		field  string
	}{
		{"no labels", nil, Entry{Timestamp: fixtureBase}, "labels"},
		{"only empty values", []Label{{"a", ""}}, Entry{Timestamp: fixtureBase}, "labels"},
		{"empty name", []Label{{"job", "x"}, {"", "v"}}, Entry{Timestamp: fixtureBase}, "labels[1].name"},
		{"invalid utf-8 name", []Label{{"a\xff", "v"}}, Entry{Timestamp: fixtureBase}, "labels[0].name"},
		{"invalid utf-8 value", []Label{{"a", "\xff"}}, Entry{Timestamp: fixtureBase}, "labels[0].value"},
		{"duplicate name", []Label{{"a", "1"}, {"a", "2"}}, Entry{Timestamp: fixtureBase}, "labels"},
		{"zero timestamp", ok, Entry{}, "timestamp"},
		{"year 10000", ok, Entry{Timestamp: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}, "timestamp"},
		{"empty metadata name", ok, Entry{Timestamp: fixtureBase, Metadata: []Label{{"k", "v"}, {"", "v"}}}, "metadata[1].name"},
		{"metadata name Loki cannot normalise", ok, Entry{Timestamp: fixtureBase, Metadata: []Label{{"..", "v"}}}, "metadata[0].name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := NewBatch()
			tt.entry.Ref = 42
			err := b.Add(tt.labels, tt.entry)
			var ie *InputError
			require.True(t, errors.As(err, &ie), "got %v", err)
			assert.Equal(t, 42, ie.Ref)
			assert.Equal(t, tt.field, ie.Field)
			assert.Equal(t, 0, b.Len())
			retryable, class := Classify(err)
			assert.False(t, retryable)
			assert.Equal(t, ClassInput, class)
		})
	}
}

func TestBatchKeepsMetadataPerEntry(t *testing.T) {
	b := NewBatch()
	md := []Label{{"k", "1"}}
	require.NoError(t, b.Add([]Label{{"a", "1"}}, Entry{Timestamp: fixtureBase, Metadata: md}))
	md[0].Value = "changed" // the caller reuses its slice
	require.NoError(t, b.Add([]Label{{"a", "1"}}, Entry{Timestamp: fixtureBase, Metadata: md}))
	es := b.streams[0].entries
	assert.Equal(t, "1", es[0].StructuredMetadata[0].Value)
	assert.Equal(t, "changed", es[1].StructuredMetadata[0].Value)
	assert.Len(t, es[0].StructuredMetadata, 1)
}
