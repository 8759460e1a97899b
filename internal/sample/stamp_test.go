package sample

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestStampTimes: a record's own time is set, its other times move as
// much, and stamping back restores the record.
func TestStampTimes(t *testing.T) {
	stamp := StampOwnTime(`"ts":"`, `"started_at":"`)
	line := `{"seq":8,"ts":"2026-02-23T14:31:00.652Z","kind":"k","content":"x \"2026-02-23T14:31:00.652Z\"","deadline_at":"2026-02-23T18:31:00.644Z"}`
	at := time.Date(2026, 3, 1, 0, 0, 1, 500_000_000, time.UTC)
	got, d := stamp(line, at)
	assert.Equal(t, `{"seq":8,"ts":"2026-03-01T00:00:01.500Z","kind":"k","content":"x \"2026-02-23T14:31:00.652Z\"","deadline_at":"2026-03-01T04:00:01.492Z"}`, got)
	assert.Equal(t, at.Sub(time.Date(2026, 2, 23, 14, 31, 0, 652_000_000, time.UTC)), d)
	back, _ := stamp(got, time.Date(2026, 2, 23, 14, 31, 0, 652_000_000, time.UTC))
	assert.Equal(t, line, back)
	header := `{"type":"x","run_id":"r","started_at":"2026-02-23T15:07:46.409Z","tools":{"ts":"2026-02-23T15:07:46.000Z"}}`
	got, _ = stamp(header, at)
	assert.Equal(t, `{"type":"x","run_id":"r","started_at":"2026-03-01T00:00:01.500Z","tools":{"ts":"2026-03-01T00:00:01.091Z"}}`, got, "the first time key is the record's own")
	got, d = stamp(`{"seq":1}`, at)
	assert.Equal(t, `{"seq":1}`, got)
	assert.Zero(t, d)
}
