package ledger

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strconv"
	"time"
)

// Marks returns the marks kept for session (a session's key, its main
// journal's path): short facts a format's side records leave between
// sweeps (format.Marks). A session without marks gives an empty map.
func (l *Ledger) Marks(ctx context.Context, session string) (map[string]string, error) {
	if session == "" {
		return nil, invalid("marks", session, errors.New("empty session key"))
	}
	if err := l.check("marks", session); err != nil {
		return nil, err
	}
	rows, err := l.c.stmts[sMarks].QueryContext(ctx, session)
	if err != nil {
		return nil, l.fail("marks", session, err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var name, value string
		if err := rows.Scan(&name, &value); err != nil {
			return nil, l.fail("marks", session, err)
		}
		out[name] = value
	}
	return out, l.fail("marks", session, rows.Err())
}

// SetMarks stores marks for session in one transaction: each named mark
// takes its value, the others stay.
func (l *Ledger) SetMarks(ctx context.Context, session string, marks map[string]string) error {
	return l.writeMarks(ctx, "set marks", sSetMark, session, marksOf(session, marks))
}

// Mark is one named mark of a session (see Marks).
type Mark struct {
	Session, Name, Value string
}

// PutMarks is SetMarks for marks of several sessions, in one transaction:
// a flush's files' marks share one commit.
func (l *Ledger) PutMarks(ctx context.Context, marks []Mark) error {
	if len(marks) == 0 {
		return nil
	}
	return l.writeMarks(ctx, "set marks", sSetMark, marks[0].Session, marks)
}

// ForgetMarks removes every mark of session; the retention agent calls it
// once the session is deleted. Forgetting an unknown session is not an
// error.
func (l *Ledger) ForgetMarks(ctx context.Context, session string) error {
	if session == "" {
		return invalid("forget marks", session, errors.New("empty session key"))
	}
	return l.write(ctx, "forget marks", session, func(w *wtx) error {
		return w.exec(sForgetMarks, session)
	})
}

// RaiseMarks stores integer marks for session in one transaction: each
// named mark takes its value unless it holds a larger one already, so
// concurrent writers (several processes) only ever raise a mark.
func (l *Ledger) RaiseMarks(ctx context.Context, session string, marks map[string]int64) error {
	text := make(map[string]string, len(marks))
	for n, v := range marks {
		text[n] = strconv.FormatInt(v, 10)
	}
	return l.writeMarks(ctx, "raise marks", sRaiseMark, session, marksOf(session, text))
}

// marksOf lists the marks of one session.
func marksOf(session string, marks map[string]string) []Mark {
	out := make([]Mark, 0, len(marks))
	for n, v := range marks {
		out = append(out, Mark{Session: session, Name: n, Value: v})
	}
	return out
}

// writeMarks runs statement id for each of marks, in session and name
// order (repeatable statements; a mark named twice in its order in marks),
// in one transaction; label names the call in errors.
func (l *Ledger) writeMarks(ctx context.Context, op string, id stmtID, label string, marks []Mark) error {
	for _, m := range marks {
		if m.Session == "" {
			return invalid(op, m.Session, errors.New("empty session key"))
		}
		if m.Name == "" {
			return invalid(op, m.Session, errors.New("empty mark name"))
		}
	}
	if label == "" {
		return invalid(op, label, errors.New("empty session key"))
	}
	sorted := slices.Clone(marks)
	slices.SortStableFunc(sorted, func(a, b Mark) int { // a mark named twice: the last value wins
		return cmp.Or(cmp.Compare(a.Session, b.Session), cmp.Compare(a.Name, b.Name))
	})
	now := time.Now().UnixNano()
	return l.write(ctx, op, label, func(w *wtx) error {
		for _, m := range sorted {
			if err := w.exec(id, m.Session, m.Name, m.Value, now); err != nil {
				return err
			}
		}
		return nil
	})
}
