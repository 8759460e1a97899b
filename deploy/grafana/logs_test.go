package grafana

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/journalship/journalship/internal/lokiquery"
	"github.com/journalship/journalship/internal/sample"
)

// Log answers are checked entry by entry: the set of entries (each journal
// line by its file and byte offset, each journalship entry by its kind and
// file) must be exactly the expected one, and each entry's formatted line
// and labels must be what the corpus says.

// entryWant is one expected entry and its check.
type entryWant struct {
	place string
	check func(e lokiquery.Entry) error
}

// placeOf identifies an entry of an answer: a journal line by its file
// and byte offset, the finalizer's truncated_tail and file_summary by
// their kind and file, an entry a format builds from side files (no
// byte offset) by its type, file and time.
func placeOf(e lokiquery.Entry) string {
	switch et := e.Stream["event_type"]; {
	case et == "truncated_tail" || et == "file_summary":
		return et + "@" + e.Metadata["file"]
	case e.Metadata["byte_offset"] == "":
		return sidePlace(et, e.Metadata["file"], e.Time)
	}
	return e.Metadata["file"] + "@" + e.Metadata["byte_offset"]
}

func (w *world) linePlace(f *fact) string {
	if f.side != nil {
		return sidePlace(f.eventType, w.path(f.file), f.side.at)
	}
	return w.path(f.file) + "@" + strconv.FormatInt(f.line.Offset, 10)
}

func sidePlace(eventType, file string, at time.Time) string {
	return eventType + "@" + file + "@" + strconv.FormatInt(at.UnixNano(), 10)
}

// textIs checks the journal text an entry's line ends with: the line's
// own, or a side entry's JSON holding what the world knows of it.
func textIs(f *fact, text string) error {
	if f.side != nil {
		return sideTextHolds(text, f.side.want)
	}
	if text != f.line.Text {
		return fmt.Errorf("text\n      %.300q\n    want\n      %.300q", text, f.line.Text)
	}
	return nil
}

func (w *world) synthPlace(kind string, f *sample.File) string { return kind + "@" + w.path(f) }

// matchEntries compares the answer with the wants.
func matchEntries(es []lokiquery.Entry, wants []entryWant) error {
	byPlace := map[string]entryWant{}
	for _, x := range wants {
		byPlace[x.place] = x
	}
	seen := map[string]bool{}
	var errs []string
	for _, e := range es {
		p := placeOf(e)
		x, ok := byPlace[p]
		switch {
		case seen[p]:
			errs = append(errs, "returned twice: "+p)
		case !ok:
			errs = append(errs, fmt.Sprintf("unexpected entry %s: %.120q", p, e.Line))
		default:
			if err := x.check(e); err != nil {
				errs = append(errs, p+": "+err.Error())
			}
		}
		seen[p] = true
	}
	for p := range byPlace {
		if !seen[p] {
			errs = append(errs, "missing "+p)
		}
	}
	if len(errs) > 0 {
		sort.Strings(errs)
		if len(errs) > 8 {
			errs = append(errs[:8], fmt.Sprintf("... and %d more", len(errs)-8))
		}
		return fmt.Errorf("%d entries, want %d:\n    %s", len(es), len(wants), strings.Join(errs, "\n    "))
	}
	return nil
}

// lineIs checks an entry's formatted line.
func lineIs(e lokiquery.Entry, want string) error {
	if e.Line != want {
		return fmt.Errorf("line\n      %.300q\n    want\n      %.300q", e.Line, want)
	}
	return nil
}

// kindsOf reads the annotation kinds of an entry, sorted.
func kindsOf(e lokiquery.Entry) []string {
	if e.Metadata["annotations"] == "" {
		return nil
	}
	k := strings.Split(e.Metadata["annotations"], ",")
	sort.Strings(k)
	return k
}

// sameKinds checks the entry's annotations against the fact's.
func sameKinds(e lokiquery.Entry, f *fact) error {
	if got := kindsOf(e); !slices.Equal(got, f.kinds) {
		return fmt.Errorf("annotations %v, want %s", got, fmtKinds(f.kinds))
	}
	return nil
}

// levelIs checks the level label a label_format stage set.
func levelIs(e lokiquery.Entry, want string) error {
	if got := e.Metadata["level"]; got != want {
		return fmt.Errorf("level %q, want %q", got, want)
	}
	return nil
}

// seqText is the seq metadata of a line: its integer seq, or "".
func seqText(f *fact) string {
	if f.line.Seq < 0 {
		return ""
	}
	return strconv.FormatInt(f.line.Seq, 10)
}

// firstErr returns the first non-nil error.
func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// sortedByTime checks that a forward answer is in time order.
func sortedByTime(es []lokiquery.Entry) error {
	for i := 1; i < len(es); i++ {
		if es[i].Time.Before(es[i-1].Time) {
			return fmt.Errorf("entry %d (%s) is before entry %d (%s)", i, es[i].Time, i-1, es[i-1].Time)
		}
	}
	return nil
}
