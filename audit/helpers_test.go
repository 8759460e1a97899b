package audit

import (
	"encoding/json"
	"io"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/require"
)

const (
	jobID   = "01956a3b-7c4d-7e8f-9a1b-2c3d4e5f6789"
	sessID  = "01956a3b-8000-7000-8000-000000000001"
	agentID = "01956a3b-9000-7000-8000-000000000002"
	ckpt1   = "01956a3b-c000-7000-8000-0000000000c1"
	ckpt2   = "01956a3b-c000-7000-8000-0000000000c2"
	hash64  = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
)

// inv returns a distinct invocation id.
func inv(n int) string { return "01956a3b-a000-7000-8000-00000000000" + strconv.Itoa(n) }

// event renders one v1 event with the base fields and extra (JSON members
// without braces).
func event(typ string, seq int64, extra string) string {
	s := `{"type":"` + typ + `","timestamp":"2026-02-23T14:30:22.123Z","job_id":"` + jobID +
		`","session_id":"` + sessID + `","seq":` + strconv.FormatInt(seq, 10)
	if extra != "" {
		s += "," + extra
	}
	return s + "}"
}

func sessionStart(seq int64) string {
	return event("SESSION_START", seq, `"buffer_schema_version":1,"agent_id":"`+agentID+`","pod_name":"agent-worker-7b9f4-xk2n3","worker_job_id":null`)
}

func checkpointLoaded(seq int64) string {
	return event("CHECKPOINT_LOADED", seq, `"checkpoint_id":null,"step_index":null`)
}

func llmRequest(seq, step int64) string {
	return event("LLM_REQUEST", seq, `"model":"claude-sonnet-4-5","step_index":`+strconv.FormatInt(step, 10)+`,"prompt_hash":"`+hash64+`","message_count":3`)
}

func toolStart(seq int64, id, name string, sideEffect bool) string {
	return event("TOOL_START", seq, `"invocation_id":"`+id+`","tool_name":"`+name+`","input_hash":"`+hash64+
		`","input_summary":"args","is_side_effect":`+strconv.FormatBool(sideEffect))
}

func toolResult(seq int64, id, name string, ok bool) string {
	return event("TOOL_RESULT", seq, `"invocation_id":"`+id+`","tool_name":"`+name+`","success":`+strconv.FormatBool(ok)+`,"duration_ms":12,"result_summary":"done","error_code":null`)
}

func checkpointWritten(seq int64, id string, step int64) string {
	return event("CHECKPOINT_WRITTEN", seq, `"checkpoint_id":"`+id+`","step_index":`+strconv.FormatInt(step, 10)+`,"checkpoint_size_bytes":51200`)
}

func errorEvent(seq int64) string { return event("ERROR", seq, `"message":"boom"`) }

func sessionEnd(seq int64, reason string) string {
	return event("SESSION_END", seq, `"reason":"`+reason+`","total_events":`+strconv.FormatInt(seq+1, 10)+`,"final_step_index":0`)
}

// journal joins lines, each ended by "\n".
func journal(lines ...string) string {
	return strings.Join(lines, "\n") + "\n"
}

// cleanSession is a complete session of n+2 lines (seqs 0..n+1).
func cleanSession(n int) []string {
	out := []string{sessionStart(0)}
	for i := 1; i <= n; i++ {
		out = append(out, errorEvent(int64(i)))
	}
	return append(out, sessionEnd(int64(n+1), "completed"))
}

func auditString(t testing.TB, content string, cfg Config) Report {
	t.Helper()
	r, err := Reader(strings.NewReader(content), "job/session_20260223T143022Z_pod.jsonl", cfg)
	require.NoError(t, err)
	return r
}

// seedModel is an independent port of the seed's assessBufferIntegrity
// and shouldUseBufferForRecovery, over the whole content as Node would
// hold it: split on "\n", ECMAScript trim, JSON.parse (encoding/json into
// any: the last duplicate key wins, invalid UTF-8 becomes U+FFFD).
type seedModel struct {
	TotalLines, ValidLines, CorruptLines int
	TailTruncated                        bool
	Severity                             string
	CorruptionRatio                      float64
	Usable                               bool
}

func esTrim(s string) string {
	return strings.TrimFunc(s, func(r rune) bool {
		switch r {
		case '\t', '\v', '\f', '\uFEFF', '\n', '\r', '\u2028', '\u2029':
			return true
		}
		return unicode.Is(unicode.Zs, r)
	})
}

func esParseLine(raw string) bool {
	var v any
	dec := json.NewDecoder(strings.NewReader(esTrim(raw)))
	dec.UseNumber() // JSON.parse takes 1e400 (as Infinity)
	if dec.Decode(&v) != nil {
		return false
	}
	if _, err := dec.Token(); err != io.EOF {
		return false
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return false
	}
	_, typeOK := obj["type"].(string)
	_, tsOK := obj["timestamp"].(string)
	return typeOK && tsOK
}

// assessSeed runs the seed model; a line longer than maxLine is invalid
// (audit's documented limit, which the seed does not have).
func assessSeed(content string, threshold float64, maxLine int) seedModel {
	var nonEmpty []string
	for _, l := range strings.Split(content, "\n") {
		if esTrim(l) != "" {
			nonEmpty = append(nonEmpty, l)
		}
	}
	if len(nonEmpty) == 0 {
		return seedModel{Severity: SeverityUnreadable}
	}
	var m seedModel
	for i, l := range nonEmpty {
		switch {
		case len(l) <= maxLine && esParseLine(l):
			m.ValidLines++
		case i == len(nonEmpty)-1:
			m.TailTruncated = true
		default:
			m.CorruptLines++
		}
	}
	m.TotalLines = len(nonEmpty)
	m.CorruptionRatio = float64(m.CorruptLines) / float64(m.TotalLines)
	switch {
	case m.CorruptLines == 0 && m.TailTruncated:
		m.Severity = SeverityTruncatedTail
	case m.CorruptionRatio > 0.1, m.CorruptLines > 0:
		m.Severity = SeverityCorruptInterior
	}
	m.Usable = !(m.CorruptionRatio > threshold)
	return m
}

func seedOf(r Report) seedModel {
	return seedModel{
		TotalLines: r.TotalLines, ValidLines: r.ValidLines, CorruptLines: r.CorruptLines,
		TailTruncated: r.TailTruncated, Severity: r.Severity, CorruptionRatio: r.CorruptionRatio,
		Usable: r.UsableForRecovery,
	}
}

// mutate damages a journal the ways disks and crashes do.
func mutate(x *rand.Rand, data []byte) []byte {
	b := append([]byte(nil), data...)
	if len(b) == 0 {
		return b
	}
	at := x.IntN(len(b))
	switch x.IntN(9) {
	case 0: // crash: cut anywhere
		return b[:at]
	case 1: // zeros left by a crashed write
		return append(b[:at], make([]byte, 1+x.IntN(600))...)
	case 2: // a lost newline: two events glued
		if i := strings.IndexByte(string(b[at:]), '\n'); i >= 0 {
			return append(b[:at+i], b[at+i+1:]...)
		}
		return b
	case 3: // an interleaved write
		return append(append(b[:at:at], `{"type":"TOOL_`...), data[at:]...)
	case 4: // a flipped byte
		b[at] ^= byte(1 + x.IntN(255))
		return b
	case 5: // a BOM or a Unicode space at a line start
		return append(append(b[:at:at], pick(x, "\uFEFF", "\u00a0", "\u2028", "\x0b", " \t")...), data[at:]...)
	case 6: // invalid UTF-8
		return append(append(b[:at:at], "\xff\xfe"...), data[at:]...)
	case 7: // a blank or whitespace line
		return append(append(b[:at:at], "\n   \r\n"...), data[at:]...)
	default: // a duplicated "type" whose last value is not a string
		s := strings.Replace(string(b), `"seq":`, `"type":7,"seq":`, 1+x.IntN(3))
		return []byte(s)
	}
}

func pick(x *rand.Rand, s ...string) string { return s[x.IntN(len(s))] }
