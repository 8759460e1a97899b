package ledger

import (
	"context"
	"errors"
	"sort"
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
	return l.writeMarks(ctx, "set marks", sSetMark, session, marks)
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
	return l.writeMarks(ctx, "raise marks", sRaiseMark, session, text)
}

// writeMarks runs statement id for each mark of session, in name order
// (repeatable statements), in one transaction.
func (l *Ledger) writeMarks(ctx context.Context, op string, id stmtID, session string, marks map[string]string) error {
	if session == "" {
		return invalid(op, session, errors.New("empty session key"))
	}
	names := make([]string, 0, len(marks))
	for n := range marks {
		if n == "" {
			return invalid(op, session, errors.New("empty mark name"))
		}
		names = append(names, n)
	}
	sort.Strings(names)
	now := time.Now().UnixNano()
	return l.write(ctx, op, session, func(w *wtx) error {
		for _, n := range names {
			if err := w.exec(id, session, n, marks[n], now); err != nil {
				return err
			}
		}
		return nil
	})
}
