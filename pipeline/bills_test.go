package pipeline

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/journalship/journalship/ledger"
	"github.com/journalship/journalship/metrics"
	"github.com/journalship/journalship/pricing"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// billLine is a Claude Code assistant line of session sid answering with
// response msg (request req) and out output tokens.
func billLine(sid, msg, req string, n, out int) string {
	return fmt.Sprintf(`{"parentUuid":null,"isSidechain":false,"sessionId":"%s","type":"assistant","message":{"id":"%s","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[{"type":"text","text":"ok"}],"stop_reason":"end_turn","usage":{"input_tokens":5,"cache_creation_input_tokens":0,"cache_read_input_tokens":100,"output_tokens":%d}},"uuid":"%s-0000-4000-8000-%012d","timestamp":"2026-11-21T11:5%d:00.000Z","requestId":"%s"}`,
		sid, msg, out, sid[:8], n, n, req)
}

// billSession writes session sid's transcript under root with lines.
func billSession(t *testing.T, root, sid string, lines ...string) (string, []byte) {
	t.Helper()
	path := transcriptPath(root, sid)
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	data := []byte(strings.Join(lines, "\n") + "\n")
	require.NoError(t, os.WriteFile(path, data, 0o644))
	return path, data
}

// transcriptPath is session sid's transcript under root.
func transcriptPath(root, sid string) string {
	return filepath.Join(root, "projects", "-home-dev-app", sid+".jsonl")
}

// apartRoot returns a directory under which the transcripts of sessions
// a and b lock different stripes of the ledger: a flush of a that ships
// b through another pipeline of the process while it holds a's lock (in
// its push) would otherwise wait for itself, in one temp dir of 256.
func apartRoot(t *testing.T, a, b string) string {
	base := t.TempDir()
	for i := 0; ; i++ {
		root := filepath.Join(base, strconv.Itoa(i))
		if ledger.LockOrder(transcriptPath(root, a)) != ledger.LockOrder(transcriptPath(root, b)) {
			return root
		}
	}
}

const (
	billA = "aaaaaaaa-1b3e-4d5a-8c6f-2e1d0c9b8a70"
	billB = "bbbbbbbb-1b3e-4d5a-8c6f-2e1d0c9b8a70"
	billC = "cccccccc-1b3e-4d5a-8c6f-2e1d0c9b8a70"
)

// shipAll ships each journal whole, one after the other, with p.
func shipAll(t *testing.T, p *Pipeline, paths ...string) {
	t.Helper()
	for _, path := range paths {
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		_, err = p.Ship(context.Background(), tailRecords(path, data, testNow), "t")
		require.NoError(t, err)
	}
}

// outByFile sums the shipped output tokens by file, and lists the lines
// annotated counted_elsewhere.
func outByFile(t *testing.T, es []capturedEntry) (map[string]int, []string) {
	t.Helper()
	out := map[string]int{}
	var elsewhere []string
	for _, en := range es {
		if v := en.md["tokens_out"]; v != "" {
			n, err := strconv.Atoi(v)
			require.NoError(t, err)
			out[filepath.Base(en.md["file"])] += n
		}
		if strings.Contains(en.md["annotations"], "counted_elsewhere") {
			assert.Empty(t, en.md["tokens_out"], "a line counted elsewhere ships no tokens")
			assert.Empty(t, en.md["cost_usd"], "nor a cost")
			elsewhere = append(elsewhere, filepath.Base(en.md["file"])+"@"+en.md["byte_offset"])
		}
	}
	return out, elsewhere
}

// TestResponseCountedOncePerNode: a resumed session's journal repeats an
// earlier session's response (same message.id and requestId) under its own
// sessionId. Shipped after the original, by the same process, after a
// restart, or by another process on the same ledger, the copy counts
// nothing; the journal's own responses count.
func TestResponseCountedOncePerNode(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	pathA, dataA := billSession(t, root, billA, billLine(billA, "msg_01", "req_01", 1, 40))
	pathB, dataB := billSession(t, root, billB, billLine(billB, "msg_01", "req_01", 1, 40), billLine(billB, "msg_02", "req_02", 2, 7))
	pathC, dataC := billSession(t, root, billC, billLine(billC, "msg_01", "req_01", 1, 40), billLine(billC, "msg_02", "req_02", 2, 7))

	e := newEnvPriced(t, nil, pricing.Default())
	_, err := e.pipe.Ship(ctx, tailRecords(pathA, dataA, testNow), "t")
	require.NoError(t, err)
	_, err = e.pipe.Ship(ctx, tailRecords(pathB, dataB, testNow), "t")
	require.NoError(t, err)

	// A restart: a new process on the same ledger ships a third copy.
	restarted := e.twin(t)
	_, err = restarted.Ship(ctx, tailRecords(pathC, dataC, testNow), "t")
	require.NoError(t, err)

	out, elsewhere := outByFile(t, e.cap.entries())
	assert.Equal(t, map[string]int{billA + ".jsonl": 40, billB + ".jsonl": 7}, out, "each response once, under the first journal that shipped it")
	assert.ElementsMatch(t, []string{billB + ".jsonl@0", billC + ".jsonl@0", billC + ".jsonl@" + strconv.Itoa(len(billLine(billB, "msg_01", "req_01", 1, 40))+1)}, elsewhere)
}

// TestOwnerRetryCountsAgain: the owner's push fails after its claim; the
// retry of the same lines counts them (the claim is the journal's, not
// the flush's), once.
func TestOwnerRetryCountsAgain(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	pathA, dataA := billSession(t, root, billA, billLine(billA, "msg_01", "req_01", 1, 40))
	e := newEnv(t, nil)
	e.cap.setStatus(http.StatusServiceUnavailable)
	_, err := e.pipe.Ship(ctx, tailRecords(pathA, dataA, testNow), "t")
	var re *RetryError
	require.ErrorAs(t, err, &re)
	e.cap.setStatus(http.StatusNoContent)
	_, err = e.twin(t).Ship(ctx, tailRecords(pathA, dataA, testNow), "t")
	require.NoError(t, err)
	out, elsewhere := outByFile(t, e.cap.entries())
	assert.Equal(t, map[string]int{billA + ".jsonl": 40}, out)
	assert.Empty(t, elsewhere)
}

// TestConcurrentCopiesCountOnce: two processes on one ledger ship two
// copies of the same responses at the same time, each retrying as Fluent
// Bit would until it succeeds: every response counts once in all.
func TestConcurrentCopiesCountOnce(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	lines := func(sid string) string {
		var out []string
		for i := range 8 {
			out = append(out, billLine(sid, fmt.Sprintf("msg_%02d", i), fmt.Sprintf("req_%02d", i), i, 10+i))
		}
		return strings.Join(out, "\n")
	}
	want := 0
	for i := range 8 {
		want += 10 + i
	}
	for round := range 5 {
		e := newEnv(t, nil)
		twin := e.twin(t)
		var wg sync.WaitGroup
		for k, p := range []*Pipeline{e.pipe, twin} {
			sid := []string{billA, billB}[k]
			path, data := billSession(t, filepath.Join(root, strconv.Itoa(round)), sid, lines(sid))
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 10 {
					_, err := p.Ship(ctx, tailRecords(path, data, testNow), "t")
					var re *RetryError
					if !errors.As(err, &re) {
						assert.NoError(t, err)
						return
					}
				}
				t.Errorf("%s: still retrying", path)
			}()
		}
		wg.Wait()
		out, elsewhere := outByFile(t, e.cap.entries())
		assert.Equal(t, want, out[billA+".jsonl"]+out[billB+".jsonl"], "round %d: %v", round, out)
		assert.Len(t, elsewhere, 8, "round %d: each response's other copy", round)
	}
}

// TestClaimMadeElsewhereAfterLoad: a process knows the ledger's claims
// from its first response on, and asks no more; a claim another process
// makes after that is found when this one claims the same response: the
// flush is handed back, and judged again it counts the copy elsewhere.
func TestClaimMadeElsewhereAfterLoad(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	pathA, dataA := billSession(t, root, billA, billLine(billA, "msg_01", "req_01", 1, 40))
	pathB, dataB := billSession(t, root, billB, billLine(billB, "msg_02", "req_02", 1, 7))
	pathC, dataC := billSession(t, root, billC, billLine(billC, "msg_02", "req_02", 1, 7))
	e := newEnv(t, nil)
	_, err := e.pipe.Ship(ctx, tailRecords(pathA, dataA, testNow), "t") // loads the (empty) claims
	require.NoError(t, err)
	_, err = e.twin(t).Ship(ctx, tailRecords(pathB, dataB, testNow), "t")
	require.NoError(t, err)

	_, err = e.pipe.Ship(ctx, tailRecords(pathC, dataC, testNow), "t")
	var re *RetryError
	require.ErrorAs(t, err, &re, "C's copy of B's response, claimed meanwhile")
	assert.Equal(t, causeClaimedElsewhere, re.Cause)
	_, err = e.pipe.Ship(ctx, tailRecords(pathC, dataC, testNow), "t")
	require.NoError(t, err)
	out, elsewhere := outByFile(t, e.cap.entries())
	assert.Equal(t, map[string]int{billA + ".jsonl": 40, billB + ".jsonl": 7}, out)
	assert.Equal(t, []string{billC + ".jsonl@0"}, elsewhere)
}

// TestClaimGivenUpAfterLoad: a process that read the node's claims while
// another's claim was in them asks again before it counts a copy
// elsewhere on that claim's word: the other process gave it up meanwhile
// (its line refused for good), and the copy counts.
func TestClaimGivenUpAfterLoad(t *testing.T) {
	root := apartRoot(t, billA, billC) // A's push ships C
	pathA, _ := billSession(t, root, billA, billLine(billA, "msg_01", "req_01", 1, 40))
	pathB, _ := billSession(t, root, billB, billLine(billB, "msg_01", "req_01", 1, 40))
	pathC, dataC := billSession(t, root, billC, billLine(billC, "msg_09", "req_09", 1, 3))
	e := newEnv(t, nil) // the other process
	this, c2 := loadDuringPush(t, e, pathC, dataC)
	shipAll(t, e.pipe, pathA) // refused for good: dead-lettered, its claim given up
	require.Len(t, e.deadLetters(t), 1)

	shipAll(t, this, pathB)
	out, elsewhere := outByFile(t, c2.entries())
	assert.Equal(t, map[string]int{billB + ".jsonl": 40, billC + ".jsonl": 3}, out)
	assert.Empty(t, elsewhere)
}

// TestOwnClaimGivenUpAfterLoad: a process read the node's claims while
// the owner's claim was in them; the owner's first line was then refused
// for good (its claim given up) and a copy claimed and counted the
// response. The owner's next line, shipped by this process, asks again
// and counts nothing: the response is counted once on the node.
func TestOwnClaimGivenUpAfterLoad(t *testing.T) {
	root := apartRoot(t, billA, billC) // A's push ships C
	pathA, dataA := billSession(t, root, billA, billLine(billA, "msg_01", "req_01", 1, 1), billLine(billA, "msg_01", "req_01", 2, 40))
	pathB, _ := billSession(t, root, billB, billLine(billB, "msg_01", "req_01", 1, 40))
	pathC, dataC := billSession(t, root, billC, billLine(billC, "msg_09", "req_09", 1, 3))
	e := newEnv(t, nil) // the other process
	this, c2 := loadDuringPush(t, e, pathC, dataC)
	recs := tailRecords(pathA, dataA, testNow)
	_, err := e.pipe.Ship(context.Background(), recs[:1], "t") // refused for good: A's claim given up
	require.NoError(t, err)
	require.Len(t, e.deadLetters(t), 1)
	shipAll(t, e.pipe, pathB) // B's copy claims and counts the response
	second := recs[1:]
	second[0].Index = 0
	_, err = this.Ship(context.Background(), second, "t")
	require.NoError(t, err)

	other, _ := outByFile(t, e.cap.entries())
	mine, elsewhere := outByFile(t, c2.entries())
	assert.Equal(t, map[string]int{billB + ".jsonl": 40}, other)
	assert.Equal(t, map[string]int{billC + ".jsonl": 3}, mine, "A's second line counts nothing")
	assert.Equal(t, []string{billA + ".jsonl@" + strconv.Itoa(len(recs[0].Line)+1)}, elsewhere)
}

// loadDuringPush returns another process on e's ledger, shipping to a
// Loki of its own: while e's first push is under way, it ships the
// transcript at pathC, and so reads the node's claims; that push of e is
// then refused for good (422), and e's later ones are stored.
func loadDuringPush(t *testing.T, e *env, pathC string, dataC []byte) (*Pipeline, *capture) {
	t.Helper()
	c2 := newCapture(t)
	l2, err := ledger.Open(ledger.Config{Path: e.ledger.Path()})
	require.NoError(t, err)
	t.Cleanup(func() { l2.Close() })
	this, _ := pipeOn(t, c2.srv.URL, 2*time.Second, l2, nil, nil, metrics.New())
	loaded := false
	e.cap.mu.Lock()
	defer e.cap.mu.Unlock()
	e.cap.statusFor = func(int) int {
		if loaded {
			return http.StatusNoContent
		}
		loaded = true
		_, err := this.Ship(context.Background(), tailRecords(pathC, dataC, testNow), "t")
		assert.NoError(t, err)
		return http.StatusUnprocessableEntity
	}
	return this, c2
}

// twin is another pipeline (another process, with its own ledger
// handle) on e's ledger, shipping to the same Loki.
func (e *env) twin(t *testing.T) *Pipeline {
	t.Helper()
	l, err := ledger.Open(ledger.Config{Path: e.ledger.Path()})
	require.NoError(t, err)
	t.Cleanup(func() { l.Close() })
	p, _ := pipeOn(t, e.cap.srv.URL, 2*time.Second, l, nil, nil, metrics.New())
	return p
}

// TestGatewayResponsesWithoutRequestIDCountPerSession: behind an LLM
// gateway that answers every response with one message.id and no
// requestId, two sessions' responses are different bills: each counts
// in its own session.
func TestGatewayResponsesWithoutRequestIDCountPerSession(t *testing.T) {
	root := t.TempDir()
	noReq := func(sid string, out int) string {
		return strings.Replace(billLine(sid, "gateway", "", 1, out), `,"requestId":""`, "", 1)
	}
	pathA, _ := billSession(t, root, billA, noReq(billA, 40))
	pathB, _ := billSession(t, root, billB, noReq(billB, 9))
	e := newEnv(t, nil)
	shipAll(t, e.pipe, pathA, pathB)
	out, elsewhere := outByFile(t, e.cap.entries())
	assert.Equal(t, map[string]int{billA + ".jsonl": 40, billB + ".jsonl": 9}, out)
	assert.Empty(t, elsewhere)
}

// TestDeadLetteredLineClaimsNothing: a response whose line is
// dead-lettered for its time (Old_Entries dead_letter) is not claimed, so
// a copy of it shipped in time counts.
func TestDeadLetteredLineClaimsNothing(t *testing.T) {
	root := t.TempDir()
	old := strings.Replace(billLine(billA, "msg_01", "req_01", 1, 40), "2026-11-21T11:51:00.000Z", "2026-01-01T00:00:00.000Z", 1)
	pathA, _ := billSession(t, root, billA, old)
	pathB, _ := billSession(t, root, billB, billLine(billB, "msg_01", "req_01", 1, 40))
	e := newEnv(t, func(c *Config) { c.OldEntries = DeadLetter })
	shipAll(t, e.pipe, pathA, pathB)
	require.Len(t, e.deadLetters(t), 1, "the old line")
	out, elsewhere := outByFile(t, e.cap.entries())
	assert.Equal(t, map[string]int{billB + ".jsonl": 40}, out)
	assert.Empty(t, elsewhere)
}

// TestOriginalAndCopyInOneFlush: a chunk holding the original and its
// copy (a backfill of both sessions) counts the response once, under the
// first in the chunk, without a retry.
func TestOriginalAndCopyInOneFlush(t *testing.T) {
	root := t.TempDir()
	pathA, dataA := billSession(t, root, billA, billLine(billA, "msg_01", "req_01", 1, 40))
	pathB, dataB := billSession(t, root, billB, billLine(billB, "msg_01", "req_01", 1, 40), billLine(billB, "msg_02", "req_02", 2, 7))
	e := newEnv(t, nil)
	recs := append(tailRecords(pathA, dataA, testNow), tailRecords(pathB, dataB, testNow)...)
	for i := range recs {
		recs[i].Index = i
	}
	_, err := e.pipe.Ship(context.Background(), recs, "t")
	require.NoError(t, err, "no retry")
	out, elsewhere := outByFile(t, e.cap.entries())
	assert.Equal(t, map[string]int{billA + ".jsonl": 40, billB + ".jsonl": 7}, out)
	assert.Equal(t, []string{billB + ".jsonl@0"}, elsewhere)
}

// TestRefusedOwnerReleasesItsClaim: Loki refuses the owner's line for
// good (dead-lettered after its claim); the claim is given up, so the
// copy shipped later counts the response, which is in Loki nowhere else.
func TestRefusedOwnerReleasesItsClaim(t *testing.T) {
	root := t.TempDir()
	pathA, _ := billSession(t, root, billA, billLine(billA, "msg_01", "req_01", 1, 40))
	pathB, _ := billSession(t, root, billB, billLine(billB, "msg_01", "req_01", 1, 40))
	e := newEnv(t, nil)
	e.cap.setStatus(http.StatusUnprocessableEntity)
	shipAll(t, e.pipe, pathA)
	require.Len(t, e.deadLetters(t), 1, "refused for good")
	e.cap.setStatus(http.StatusNoContent)
	shipAll(t, e.twin(t), pathB) // another process: what it knows is the ledger's
	out, elsewhere := outByFile(t, e.cap.entries())
	assert.Equal(t, map[string]int{billB + ".jsonl": 40}, out)
	assert.Empty(t, elsewhere)
}

// TestLaterLineWithoutRequestIDIsTheSameBill: a response's later line
// that states no requestId is billed under the request its response was
// counted under, so a copy's growth counts nothing either.
func TestLaterLineWithoutRequestIDIsTheSameBill(t *testing.T) {
	root := t.TempDir()
	noReq := func(sid string, n, out int) string {
		return strings.Replace(billLine(sid, "msg_01", "", n, out), `,"requestId":""`, "", 1)
	}
	pathA, _ := billSession(t, root, billA, billLine(billA, "msg_01", "req_01", 1, 40), noReq(billA, 2, 60))
	pathB, _ := billSession(t, root, billB, billLine(billB, "msg_01", "req_01", 1, 40), noReq(billB, 2, 60))
	e := newEnv(t, nil)
	shipAll(t, e.pipe, pathA, pathB)
	out, _ := outByFile(t, e.cap.entries())
	assert.Equal(t, map[string]int{billA + ".jsonl": 60}, out)
}

// TestTimeDeadLetterGivesItsUsageToTheNextLine: a response's first line
// is dead-lettered for its time; it counts nothing, so the response's next
// line ships its whole usage and the copy counts nothing.
func TestTimeDeadLetterGivesItsUsageToTheNextLine(t *testing.T) {
	root := t.TempDir()
	old := strings.Replace(billLine(billA, "msg_01", "req_01", 1, 40), "2026-11-21T11:51:00.000Z", "2026-01-01T00:00:00.000Z", 1)
	pathA, _ := billSession(t, root, billA, old, billLine(billA, "msg_01", "req_01", 2, 60))
	pathB, _ := billSession(t, root, billB, billLine(billB, "msg_01", "req_01", 1, 40), billLine(billB, "msg_01", "req_01", 2, 60))
	e := newEnv(t, func(c *Config) { c.OldEntries = DeadLetter })
	shipAll(t, e.pipe, pathA, pathB)
	out, _ := outByFile(t, e.cap.entries())
	assert.Equal(t, map[string]int{billA + ".jsonl": 60}, out)
}
