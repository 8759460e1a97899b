package orbitmesh

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/integrity"
)

// base is the ts of seq 0 in the helpers' records; clock is the tests'
// Config.Now.
var (
	base  = time.Date(2026, 2, 21, 10, 0, 0, 0, time.UTC)
	clock = time.Date(2026, 2, 21, 12, 0, 0, 0, time.UTC)
)

// rec builds a record with seq, ts (base + seq seconds) and kind, plus
// string members given as key, value pairs.
func rec(seq int, kind string, kv ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `{"seq":%d,"ts":%q,"kind":%q`, seq, base.Add(time.Duration(seq)*time.Second).Format(time.RFC3339), kind)
	for i := 0; i+1 < len(kv); i += 2 {
		fmt.Fprintf(&b, `,%q:%q`, kv[i], kv[i+1])
	}
	return b.String() + "}"
}

func testFormat(t testing.TB, now time.Time) *Format {
	f, err := NewWith(Config{Now: func() time.Time { return now }})
	require.NoError(t, err)
	return f
}

// run judges lines into a fresh state (with snap when not nil) and
// returns the state and one event per line.
func run(t testing.TB, snap *Snapshot, lines ...string) (*State, []format.Event) {
	f := testFormat(t, clock)
	st := f.NewState(format.Path{}).(*State)
	if snap != nil {
		st.UseSnapshot(*snap)
	}
	j := f.NewJudge()
	var a integrity.Arena
	evs := make([]format.Event, len(lines))
	for i, l := range lines {
		j.Judge([]byte(l), st, &a, &evs[i])
	}
	return st, evs
}

func notes(ev *format.Event) []string {
	var out []string
	for _, n := range ev.Notes[:ev.NoteCount] {
		s := n.Kind
		if len(n.Detail) > 0 {
			s += "=" + string(n.Detail)
		}
		out = append(out, s)
	}
	return out
}
