package audit

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/journalship/journalship/format/cortex"
	"github.com/journalship/journalship/integrity"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// head10 is SESSION_START and nine ERRORs: seqs 0 to 9, ten lines, so that
// one bad line among them stays under the 10% threshold.
func head10() []string { return cleanSession(9)[:10] }

func with(lines ...[]string) []string {
	var out []string
	for _, l := range lines {
		out = append(out, l...)
	}
	return out
}

// want is what a case checks; the seed's counts are also checked against
// the independent seed model for every case.
type want struct {
	total, valid, schemaInvalid, corrupt int
	tail                                 bool
	severity                             string
	usable                               bool
	level                                Level
	gaps                                 []Gap // checked when not nil
	problems                             []string
}

func TestReportCases(t *testing.T) {
	deep := strings.Repeat("[", 500) + strings.Repeat("]", 500)
	ctrl := event("ERROR", 10, "\"message\":\"a\x06b\\n\"")
	cases := []struct {
		name    string
		content string
		cfg     func(*Config)
		want    want
		check   func(t *testing.T, r Report)
	}{
		{name: "clean session", content: journal(cleanSession(3)...),
			want: want{total: 5, valid: 5, usable: true, level: Clean, gaps: []Gap{}}},
		{name: "torn line glued to the next (interleaved writes)",
			content: journal(with(head10(), []string{
				`{"type":"LLM_RESPONSE","ti` + toolStart(11, inv(1), "kubectl", false),
				toolResult(12, inv(1), "kubectl", true), sessionEnd(13, "completed")})...),
			want: want{total: 13, valid: 12, corrupt: 1, severity: SeverityCorruptInterior, usable: true, level: Warning,
				gaps: []Gap{{From: 10, To: 11, Offset: -1}}},
			check: func(t *testing.T, r Report) {
				require.Len(t, r.CorruptDetails, 1)
				assert.Equal(t, 11, r.CorruptDetails[0].Line)
				assert.Equal(t, "not JSON", r.CorruptDetails[0].Reason)
				assert.True(t, strings.HasPrefix(r.CorruptDetails[0].Preview, `{"type":"LLM_RESPONSE","ti{"type":"TOOL_START"`))
				assert.Empty(t, r.StartedNotFinished, "the swallowed TOOL_START is not seen")
			}},
		{name: "lines of only spaces are skipped",
			content: journal(sessionStart(0), "     ", errorEvent(1), "\t \r", sessionEnd(2, "completed")),
			want:    want{total: 3, valid: 3, usable: true, level: Clean, gaps: []Gap{}}},
		{name: "Unicode spaces are trimmed as JavaScript does",
			content: journal(sessionStart(0), "\u00a0\u3000", "\u2028"+errorEvent(1)+"\u00a0", sessionEnd(2, "completed")),
			want: want{total: 3, valid: 3, usable: true, level: Warning, gaps: []Gap{},
				problems: []string{"line 3 at offset", "valid for the runtime's reader but corrupt for the shipper"}}},
		{name: "NUL bytes left by a crashed write at the tail",
			content: journal(sessionStart(0), errorEvent(1)) + strings.Repeat("\x00", 512),
			want: want{total: 3, valid: 2, tail: true, severity: SeverityTruncatedTail, usable: true, level: Warning,
				problems: []string{"line 3 at offset", "512 NUL bytes (zeros left by an interrupted write?)"}},
			check: func(t *testing.T, r Report) {
				assert.Equal(t, 512, r.TailBytes)
				assert.Equal(t, strings.Repeat(`\x00`, 49)+"…", r.TailPreview)
			}},
		{name: "NUL bytes glued to the next event",
			content: journal(with(head10(), []string{strings.Repeat("\x00", 100) + errorEvent(10), errorEvent(11), sessionEnd(12, "completed")})...),
			want: want{total: 13, valid: 12, corrupt: 1, severity: SeverityCorruptInterior, usable: true, level: Warning,
				gaps: []Gap{{From: 10, To: 10, Offset: -1}}, problems: []string{"100 NUL bytes"}}},
		{name: "invalid UTF-8 inside a string",
			content: journal(sessionStart(0), event("ERROR", 1, "\"message\":\"\xff\xfe bad\""), sessionEnd(2, "completed")),
			want: want{total: 3, valid: 3, usable: true, level: Warning, gaps: []Gap{},
				problems: []string{"line 2 at offset", "corrupt for the shipper (invalid UTF-8)"}}},
		{name: "invalid UTF-8 outside a string",
			content: journal(with(head10(), []string{"\xff\xfe" + errorEvent(10), sessionEnd(11, "completed")})...),
			want: want{total: 12, valid: 11, corrupt: 1, severity: SeverityCorruptInterior, usable: true, level: Warning,
				gaps: []Gap{{From: 10, To: 10, Offset: -1}}},
			check: func(t *testing.T, r Report) {
				assert.True(t, strings.HasPrefix(r.CorruptDetails[0].Preview, `\xff\xfe{"type":"ERROR"`), r.CorruptDetails[0].Preview)
			}},
		{name: "UTF-8 BOM",
			content: "\xef\xbb\xbf" + journal(cleanSession(2)...),
			want: want{total: 4, valid: 4, usable: true, level: Warning, gaps: []Gap{},
				problems: []string{"line 1 at offset 0: valid for the runtime's reader but corrupt for the shipper"}}},
		{name: "duplicate seq key",
			content: journal(sessionStart(0), strings.TrimSuffix(errorEvent(1), "}")+`,"seq":5}`, sessionEnd(2, "completed")),
			want:    want{total: 3, valid: 3, schemaInvalid: 1, usable: true, level: Warning, gaps: []Gap{}},
			check: func(t *testing.T, r Report) {
				require.Len(t, r.SchemaInvalidDetails, 1)
				assert.Equal(t, "seq: duplicate key", r.SchemaInvalidDetails[0].Reason)
			}},
		{name: "duplicate type whose last value is not a string",
			content: journal(with(head10(), []string{strings.TrimSuffix(errorEvent(10), "}") + `,"type":7}`, sessionEnd(11, "completed")})...),
			want: want{total: 12, valid: 11, corrupt: 1, severity: SeverityCorruptInterior, usable: true, level: Warning,
				gaps: []Gap{}},
			check: func(t *testing.T, r Report) {
				assert.Equal(t, `duplicate "type": the last value is not a string`, r.CorruptDetails[0].Reason)
			}},
		{name: "duplicate timestamp whose last value is not a string",
			content: journal(with(head10(), []string{strings.TrimSuffix(errorEvent(10), "}") + `,"timestamp":null}`, sessionEnd(11, "completed")})...),
			want:    want{total: 12, valid: 11, corrupt: 1, severity: SeverityCorruptInterior, usable: true, level: Warning, gaps: []Gap{}},
			check: func(t *testing.T, r Report) {
				assert.Equal(t, `duplicate "timestamp": the last value is not a string`, r.CorruptDetails[0].Reason)
			}},
		{name: "duplicate type, both strings (the first wins for the shipper, the last for the seed)",
			content: journal(sessionStart(0), strings.TrimSuffix(errorEvent(1), "}")+`,"type":"SESSION_END"}`, sessionEnd(2, "completed")),
			want:    want{total: 3, valid: 3, schemaInvalid: 1, usable: true, level: Warning, gaps: []Gap{}}},
		{name: "numbers as strings",
			content: journal(sessionStart(0), errorEvent(1), strings.Replace(errorEvent(2), `"seq":2`, `"seq":"2"`, 1), errorEvent(3), sessionEnd(4, "completed")),
			want: want{total: 5, valid: 5, schemaInvalid: 1, usable: true, level: Warning,
				gaps: []Gap{{From: 2, To: 2, Offset: -1}}},
			check: func(t *testing.T, r Report) {
				assert.Equal(t, "seq: must be an integer", r.SchemaInvalidDetails[0].Reason)
			}},
		{name: "timestamp as a number is corrupt for the seed",
			content: journal(with(head10(), []string{strings.Replace(errorEvent(10), `"timestamp":"2026-02-23T14:30:22.123Z"`, `"timestamp":1771857022`, 1), sessionEnd(11, "completed")})...),
			want: want{total: 12, valid: 11, corrupt: 1, severity: SeverityCorruptInterior, usable: true, level: Warning,
				gaps: []Gap{{From: 10, To: 10, Offset: -1}}}},
		{name: "negative seq",
			content: journal(sessionStart(0), errorEvent(1), errorEvent(-1), errorEvent(2), sessionEnd(3, "completed")),
			want:    want{total: 5, valid: 5, schemaInvalid: 1, usable: true, level: Warning, gaps: []Gap{}},
			check: func(t *testing.T, r Report) {
				assert.Equal(t, "seq: must be >= 0", r.SchemaInvalidDetails[0].Reason)
			}},
		{name: "seq beyond int64",
			content: journal(sessionStart(0), strings.Replace(errorEvent(1), `"seq":1`, `"seq":99999999999999999999999`, 1), errorEvent(2), sessionEnd(3, "completed")),
			want: want{total: 4, valid: 4, schemaInvalid: 1, usable: true, level: Warning,
				gaps: []Gap{{From: 1, To: 1, Offset: -1}}}},
		{name: "seq at the int64 maximum",
			content: journal(sessionStart(0), errorEvent(1), errorEvent(math.MaxInt64), errorEvent(2), sessionEnd(3, "completed")),
			want: want{total: 5, valid: 5, usable: true, level: Warning,
				gaps: []Gap{{From: 2, To: math.MaxInt64 - 1, Offset: -1}}},
			check: func(t *testing.T, r Report) {
				assert.Equal(t, int64(math.MaxInt64-2), r.MissingSeqs)
				assert.Equal(t, 2, r.Regressions, "no overflow past the maximum")
			}},
		{name: "deeply nested value",
			content: journal(sessionStart(0), event("ERROR", 1, `"payload":`+deep), sessionEnd(2, "completed")),
			want:    want{total: 3, valid: 3, usable: true},
			check: func(t *testing.T, r Report) {
				var ev cortex.Event
				v, err := cortex.NewValidator(cortex.DefaultConfig())
				require.NoError(t, err)
				v.Validate([]byte(event("ERROR", 1, `"payload":`+deep)), false, integrity.NewArena(64), &ev)
				if ev.Outcome == integrity.Corrupt { // the shipper's parser has a depth limit
					assert.Equal(t, Warning, r.Level())
					require.Len(t, r.Problems, 1)
					assert.Contains(t, r.Problems[0], "valid for the runtime's reader but corrupt for the shipper")
				} else {
					assert.Equal(t, Clean, r.Level())
				}
			}},
		{name: "deeply nested array line",
			content: journal(with(head10(), []string{deep, sessionEnd(10, "completed")})...),
			want:    want{total: 12, valid: 11, corrupt: 1, severity: SeverityCorruptInterior, usable: true, level: Warning, gaps: []Gap{}}},
		{name: "not objects, no type, no timestamp",
			content: journal(with(head10(), head10()[1:], head10()[1:], head10()[1:], head10()[1:],
				[]string{`[1,2]`, `null`, `{"timestamp":"2026-02-23T14:30:22Z"}`, `{"type":"ERROR"}`, sessionEnd(10, "completed")})...),
			want: want{total: 51, valid: 47, corrupt: 4, severity: SeverityCorruptInterior, usable: true, level: Warning}},
		{name: "a 10 MB line",
			content: journal(sessionStart(0), event("ERROR", 1, `"message":"`+strings.Repeat("x", 10<<20+1000)+`"`), sessionEnd(2, "completed")),
			want:    want{total: 3, valid: 3, usable: true, level: Warning, gaps: []Gap{}},
			check: func(t *testing.T, r Report) {
				assert.True(t, r.SizeAlert)
				assert.Empty(t, r.Problems)
			}},
		{name: "a line beyond MaxLineBytes",
			content: journal(with(head10(), []string{event("ERROR", 10, `"message":"`+strings.Repeat("y", 70<<10)+`"`), sessionEnd(11, "completed")})...),
			cfg:     func(c *Config) { c.MaxLineBytes = 64 << 10 },
			want: want{total: 12, valid: 11, corrupt: 1, severity: SeverityCorruptInterior, usable: true, level: Warning,
				gaps: []Gap{{From: 10, To: 10, Offset: -1}}, problems: []string{"is longer than 65536 bytes"}},
			check: func(t *testing.T, r Report) {
				assert.Equal(t, reasonTooLong, r.CorruptDetails[0].Reason)
				assert.True(t, strings.HasPrefix(r.CorruptDetails[0].Preview, `{"type":"ERROR"`))
				assert.Regexp(t, `^line at offset \d+ is longer than 65536 bytes$`, r.Problems[0])
			}},
		{name: "a blank line beyond MaxLineBytes is still blank",
			content: journal(sessionStart(0), strings.Repeat(" ", 70<<10), sessionEnd(1, "completed")),
			cfg:     func(c *Config) { c.MaxLineBytes = 64 << 10 },
			want:    want{total: 2, valid: 2, usable: true, level: Clean, gaps: []Gap{}}},
		// The seed's severity for a file without a line, but only a
		// warning: a session that has not written yet is not corrupt.
		{name: "empty file",
			content: "",
			want:    want{severity: SeverityUnreadable, level: Warning}},
		{name: "blank lines only",
			content: "\n \n\r\n",
			want:    want{severity: SeverityUnreadable, level: Warning}},
		{name: "a file that is only a partial line",
			content: `{"type":"SESSION_START","tim`,
			want:    want{total: 1, tail: true, severity: SeverityTruncatedTail, usable: true, level: Warning, gaps: []Gap{}},
			check: func(t *testing.T, r Report) {
				assert.Equal(t, int64(0), r.TailOffset)
				assert.Equal(t, 28, r.TailBytes)
				assert.Equal(t, `{"type":"SESSION_START","tim`, r.TailPreview)
			}},
		{name: "last non-empty line invalid though newline-terminated",
			content: journal(sessionStart(0), errorEvent(1), `{"type":"TOOL_RESULT","inv`, "", "  "),
			want:    want{total: 3, valid: 2, tail: true, severity: SeverityTruncatedTail, usable: true, level: Warning, gaps: []Gap{}}},
		{name: "CRLF line endings",
			content: strings.ReplaceAll(journal(cleanSession(3)...), "\n", "\r\n"),
			want:    want{total: 5, valid: 5, usable: true, level: Clean, gaps: []Gap{}}},
		{name: "corruption over the threshold",
			content: journal(sessionStart(0), "garbage", "{", `{"type":`, errorEvent(1), sessionEnd(2, "completed")),
			want:    want{total: 6, valid: 3, corrupt: 3, severity: SeverityCorruptInterior, level: Corrupt}},
		{name: "corruption over a raised threshold is usable",
			content: journal(sessionStart(0), "garbage", "{", `{"type":`, errorEvent(1), sessionEnd(2, "completed")),
			cfg:     func(c *Config) { c.CorruptionThreshold = 0.5 },
			want:    want{total: 6, valid: 3, corrupt: 3, severity: SeverityCorruptInterior, usable: true, level: Warning}},
		{name: "exactly 10% is not over the threshold",
			content: journal(sessionStart(0), errorEvent(1), errorEvent(2), errorEvent(3), "garbage", errorEvent(4), errorEvent(5), errorEvent(6), errorEvent(7), sessionEnd(8, "completed")),
			want:    want{total: 10, valid: 9, corrupt: 1, severity: SeverityCorruptInterior, usable: true, level: Warning}},
		{name: "unknown schema version is judged best-effort",
			content: journal(strings.Replace(sessionStart(0), `"buffer_schema_version":1`, `"buffer_schema_version":2`, 1),
				`{"type":"LLM_RESPONSE","timestamp":"2026-02-23T14:30:22Z","job_id":"`+jobID+`","seq":1,"finish_reason":"refusal"}`,
				sessionEnd(2, "completed")),
			want: want{total: 3, valid: 3, usable: true, level: Clean, gaps: []Gap{}},
			check: func(t *testing.T, r Report) {
				assert.True(t, r.BestEffort)
				assert.Equal(t, int64(2), r.SchemaVersion)
			}},
		{name: "duplicate and regressed seqs",
			content: journal(sessionStart(0), errorEvent(1), errorEvent(2), errorEvent(2), errorEvent(1), errorEvent(3), sessionEnd(4, "completed")),
			want:    want{total: 7, valid: 7, usable: true, level: Warning, gaps: []Gap{}},
			check: func(t *testing.T, r Report) {
				assert.Equal(t, 1, r.DuplicateSeqs)
				assert.Equal(t, 1, r.Regressions)
			}},
		{name: "a lost head: the first line should be seq 0",
			content: journal(errorEvent(3), sessionEnd(4, "completed")),
			want:    want{total: 2, valid: 2, usable: true, level: Warning, gaps: []Gap{{From: 0, To: 2, Offset: 0}}}},
		{name: "no SESSION_END",
			content: journal(sessionStart(0), errorEvent(1)),
			want:    want{total: 2, valid: 2, usable: true, level: Warning, gaps: []Gap{}},
			check: func(t *testing.T, r Report) {
				assert.False(t, r.SessionEnded)
				assert.Equal(t, "", r.EndReason)
			}},
		{name: "an end reason outside the enum is still reported",
			content: journal(sessionStart(0), sessionEnd(1, "crashed")),
			want:    want{total: 2, valid: 2, schemaInvalid: 1, usable: true, level: Warning, gaps: []Gap{}},
			check: func(t *testing.T, r Report) {
				assert.True(t, r.SessionEnded)
				assert.Equal(t, "crashed", r.EndReason)
			}},
		{name: "a raw control character in a string, before an escape",
			content: journal(with(head10(), []string{ctrl, sessionEnd(11, "completed")})...),
			want:    want{total: 12, valid: 11, corrupt: 1, severity: SeverityCorruptInterior, usable: true, level: Warning},
			check: func(t *testing.T, r Report) {
				var ev cortex.Event
				v, err := cortex.NewValidator(cortex.DefaultConfig())
				require.NoError(t, err)
				v.Validate([]byte(ctrl), false, integrity.NewArena(64), &ev)
				if ev.Outcome != integrity.Corrupt { // fastjson's Validate misses control characters before an escape
					require.Len(t, r.Problems, 1)
					assert.Contains(t, r.Problems[0], "not JSON for the runtime's reader but accepted by the shipper")
					assert.Zero(t, r.SeqGapCount, "the shipper read its seq")
				} else {
					assert.Empty(t, r.Problems)
					after := int64(len(journal(with(head10(), []string{ctrl})...)))
					assert.Equal(t, []Gap{{From: 10, To: 10, Offset: after}}, r.SeqGaps)
				}
			}},
		{name: "binary file",
			content: binaryContent(),
			want:    want{level: Corrupt, problems: []string{"binary file: NUL bytes in the first 8 KiB"}},
			check: func(t *testing.T, r Report) {
				assert.False(t, r.UsableForRecovery)
				assert.Equal(t, SeverityCorruptInterior, r.Severity)
				assert.Greater(t, r.CorruptionRatio, 0.9)
				assert.Len(t, r.Problems, 1, "NUL bytes are not reported line by line in a binary file")
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			if tc.cfg != nil {
				tc.cfg(&cfg)
			}
			r := auditString(t, tc.content, cfg)
			assert.Equal(t, assessSeed(tc.content, cfg.CorruptionThreshold, cfg.MaxLineBytes), seedOf(r), "the seed's assessment")
			w := tc.want
			if tc.name != "binary file" {
				assert.Equal(t, w.total, r.TotalLines, "total")
				assert.Equal(t, w.valid, r.ValidLines, "valid")
				assert.Equal(t, w.corrupt, r.CorruptLines, "corrupt")
				assert.Equal(t, w.tail, r.TailTruncated, "tail")
				assert.Equal(t, w.severity, r.Severity, "severity")
				assert.Equal(t, w.usable, r.UsableForRecovery, "usable")
			}
			assert.Equal(t, w.schemaInvalid, r.SchemaInvalidLines, "schema invalid")
			if w.level != Clean || tc.check == nil {
				assert.Equal(t, w.level, r.Level(), "level; problems: %q", r.Problems)
			}
			if w.gaps != nil {
				assert.Equal(t, len(w.gaps), r.SeqGapCount)
				require.Len(t, r.SeqGaps, len(w.gaps))
				for i, g := range w.gaps {
					assert.Equal(t, g.From, r.SeqGaps[i].From)
					assert.Equal(t, g.To, r.SeqGaps[i].To)
					if g.Offset >= 0 {
						assert.Equal(t, g.Offset, r.SeqGaps[i].Offset)
					} else {
						assert.Equal(t, '{', rune(tc.content[r.SeqGaps[i].Offset]), "a gap's offset is its line's")
					}
				}
			}
			for _, p := range w.problems {
				assert.Contains(t, strings.Join(r.Problems, "\n"), p)
			}
			if len(w.problems) == 0 && tc.check == nil {
				assert.Empty(t, r.Problems)
			}
			assert.Equal(t, int64(len(tc.content)), r.Size)
			if tc.check != nil {
				tc.check(t, r)
			}
		})
	}
}

// binaryContent looks like a compressed file: NUL bytes, newlines, noise.
func binaryContent() string {
	x := rand.New(rand.NewPCG(7, 7))
	b := []byte("\x1f\x8b\x08\x00\x00\x00\x00\x00")
	for range 20000 {
		b = append(b, byte(x.IntN(256)))
	}
	return string(b)
}
