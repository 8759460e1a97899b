package integrity

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

// rule numbers from 0 and counts gaps (Cortex Plane's rule).
var rule = SeqRule{Start: 0, HasStart: true, Gaps: true}

func TestJudge(t *testing.T) {
	cases := []struct {
		name    string
		prev    Prev
		seq     int64
		hasSeq  bool
		verdict Continuity
		detail  string
		missing int64
	}{
		{"in order", Prev{Known: true, Seq: 4}, 5, true, SeqNone, "", 0},
		{"first line seq 0", Prev{Known: true, AtStart: true}, 0, true, SeqNone, "", 0},
		{"lost head", Prev{Known: true, AtStart: true}, 3, true, SeqGap, "0-2", 3},
		{"gap of two", Prev{Known: true, Seq: 14}, 17, true, SeqGap, "15-16", 2},
		{"gap of one", Prev{Known: true, Seq: 14}, 16, true, SeqGap, "15", 1},
		{"repeat", Prev{Known: true, Seq: 7}, 7, true, SeqRepeat, "after 7", 0},
		{"regression", Prev{Known: true, Seq: 7}, 2, true, SeqRegression, "after 7", 0},
		{"unknown prev", Prev{}, 9, true, SeqUnverified, "", 0},
		{"no seq", Prev{Known: true, Seq: 7}, 0, false, SeqNone, "", 0},
		{"after the largest seq", Prev{Known: true, Seq: math.MaxInt64}, 5, true, SeqRegression, "after 9223372036854775807", 0},
		{"largest seq twice", Prev{Known: true, Seq: math.MaxInt64}, math.MaxInt64, true, SeqRepeat, "after 9223372036854775807", 0},
		{"up to the largest seq", Prev{Known: true, Seq: math.MaxInt64 - 1}, math.MaxInt64, true, SeqNone, "", 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			j := rule.Judge(tc.prev, tc.seq, tc.hasSeq)
			assert.Equal(t, tc.verdict, j.Verdict)
			assert.Equal(t, tc.detail, string(j.Detail(nil)))
			assert.Equal(t, tc.missing, j.Missing())
		})
	}
}

func TestPrevAfterKeepsTheHighest(t *testing.T) {
	p := Prev{Known: true, AtStart: true}
	for _, seq := range []int64{0, 1, 2, 3} {
		p = p.After(seq, true)
	}
	stale := p.After(1, true) // a late line with an old seq
	assert.Equal(t, Prev{Known: true, Seq: 3}, stale)
	assert.Equal(t, SeqNone, rule.Judge(stale, 4, true).Verdict, "the line after a stale one is not a gap")
	assert.Equal(t, stale, stale.After(0, false), "lines without seq change nothing")
	assert.Equal(t, Prev{Known: true, Seq: 9}, Prev{}.After(9, true))
}

func TestNames(t *testing.T) {
	assert.Equal(t, "seq_gap", SeqGap.String())
	assert.Equal(t, "schema_invalid", SchemaInvalid.String())
	assert.Equal(t, "unknown", Outcome(9).String())
	assert.Equal(t, "a: b; c: d", ViolationText([]Violation{{"a", "b"}, {"c", "d"}}))
	assert.Equal(t, "", ViolationText(nil))
}
