package ledger

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"slices"
	"strconv"
	"time"
)

// BillsKept is how long a claim is kept: a copy of a unit shipped later
// counts again. It outlasts what runtimes keep the journals they copy
// from (Claude Code deletes transcripts after 30 days by default), and
// claims older than it are forgotten, at most hourly, as new ones are
// made.
const BillsKept = 90 * 24 * time.Hour

// Bill claims a billed unit for one journal: Key names the unit on the
// node (a format's format.Event.Bill, a Claude Code response), Owner is
// the path of the journal whose lines count its usage. A unit copied
// into other journals (resumed, forked, continued sessions) is counted
// by its owner's lines only.
type Bill struct {
	Key   uint64
	Owner string
}

// BillOwner returns the journal that claimed the unit key, ok false when
// none has.
func (l *Ledger) BillOwner(ctx context.Context, key uint64) (owner string, ok bool, err error) {
	if err := l.check("bill owner", ""); err != nil {
		return "", false, err
	}
	err = l.c.stmts[sBillOwner].QueryRowContext(ctx, int64(key)).Scan(&owner)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, l.fail("bill owner", "", err)
	}
	return owner, true, nil
}

// ClaimBills claims, in one transaction, every unit of bills no journal
// has claimed yet for its Owner, and returns the bills whose unit another
// journal had claimed already, each with that journal as Owner. Claims
// are never moved: concurrent claimers (workers, processes) agree on the
// first.
func (l *Ledger) ClaimBills(ctx context.Context, bills []Bill) (taken []Bill, err error) {
	for _, b := range bills {
		if b.Owner == "" {
			return nil, invalid("claim bills", "", errors.New("a bill without an owner"))
		}
	}
	sorted := slices.Clone(bills)
	slices.SortStableFunc(sorted, func(a, b Bill) int { return cmp.Compare(a.Key, b.Key) })
	now := time.Now().UnixNano()
	prune := now-l.c.billsPruned.Load() > int64(time.Hour)
	err = l.write(ctx, "claim bills", "", func(w *wtx) error {
		taken = taken[:0]
		if prune {
			if err := w.exec(sForgetBills, now-int64(BillsKept)); err != nil {
				return err
			}
		}
		if len(sorted) == 0 {
			return nil
		}
		owners, err := claimBills(w, sorted, now)
		if err != nil {
			return err
		}
		var others []Bill // claimed before this call
		for _, b := range sorted {
			if _, ok := owners[b.Key]; !ok {
				others = append(others, b)
			}
		}
		if len(others) > 0 {
			if err := billOwners(w, others, owners); err != nil {
				return err
			}
		}
		for _, b := range sorted {
			if owner := owners[b.Key]; owner != b.Owner {
				taken = append(taken, Bill{Key: b.Key, Owner: owner})
			}
		}
		return nil
	})
	if err == nil && prune {
		l.c.billsPruned.Store(now)
	}
	return taken, err
}

// billList is bills as sClaimBills takes them: a JSON array of [key,
// owner in hex].
func billList(bills []Bill) string {
	return jsonArray(len(bills), func(b []byte, i int) []byte {
		b = strconv.AppendInt(append(b, '['), int64(bills[i].Key), 10)
		return append(appendHex(append(b, ','), bills[i].Owner), ']')
	})
}

// claimBills claims the unclaimed units of bills (sorted by key) and
// returns their owners, by key: a unit named twice is claimed by its
// first bill, the only one sent. The statement returns only the keys it
// claimed: each owner is the bill's own, and reading it back cost a
// string per bill.
func claimBills(w *wtx, bills []Bill, now int64) (map[uint64]string, error) {
	firsts := slices.CompactFunc(slices.Clone(bills), func(a, b Bill) bool { return a.Key == b.Key })
	rows, err := w.stmt(sClaimBills).QueryContext(w.ctx, billList(firsts), now)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	claimed := make(map[uint64]string, len(firsts))
	for rows.Next() {
		var key int64
		if err := rows.Scan(&key); err != nil {
			return nil, err
		}
		claimed[uint64(key)] = ""
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for _, b := range firsts {
		if _, ok := claimed[b.Key]; ok {
			claimed[b.Key] = b.Owner
		}
	}
	return claimed, nil
}

// billOwners adds the owners of the units of bills to owners.
func billOwners(w *wtx, bills []Bill, owners map[uint64]string) error {
	keys := jsonArray(len(bills), func(b []byte, i int) []byte { return strconv.AppendInt(b, int64(bills[i].Key), 10) })
	return scanOwners(w, sBillOwners, keys, owners)
}

// scanOwners runs statement id, which gives key and owner rows, into
// owners.
func scanOwners(w *wtx, id stmtID, list string, owners map[uint64]string) error {
	rows, err := w.stmt(id).QueryContext(w.ctx, list)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var key int64
		var owner string
		if err := rows.Scan(&key, &owner); err != nil {
			return err
		}
		owners[uint64(key)] = owner
	}
	return rows.Err()
}

// AllBills returns every claim the ledger keeps when there are at most
// limit, so a process can know them all and ask for none one by one;
// complete is false (and bills nil) when there are more.
func (l *Ledger) AllBills(ctx context.Context, limit int) (bills []Bill, complete bool, err error) {
	if err := l.check("bills", ""); err != nil {
		return nil, false, err
	}
	rows, err := l.c.stmts[sAllBills].QueryContext(ctx, limit+1)
	if err != nil {
		return nil, false, l.fail("bills", "", err)
	}
	defer rows.Close()
	for rows.Next() {
		var key int64
		var owner string
		if err := rows.Scan(&key, &owner); err != nil {
			return nil, false, l.fail("bills", "", err)
		}
		if len(bills) == limit {
			return nil, false, nil
		}
		bills = append(bills, Bill{Key: uint64(key), Owner: owner})
	}
	return bills, true, l.fail("bills", "", rows.Err())
}

// ReleaseBills gives up, in one transaction, the claims of bills that
// their Owner holds: the journal claimed them, but none of its lines that
// count them reached Loki (refused for good, dead-lettered), so a copy
// elsewhere may count them. A bill another journal owns is left alone.
func (l *Ledger) ReleaseBills(ctx context.Context, bills []Bill) error {
	return l.write(ctx, "release bills", "", func(w *wtx) error {
		for _, b := range bills {
			if err := w.exec(sReleaseBill, int64(b.Key), b.Owner); err != nil {
				return err
			}
		}
		return nil
	})
}

// ForgetBills removes the claims made before t, and returns how many. A
// copy of a unit shipped after its claim is forgotten counts again: keep
// claims longer than a runtime keeps the journals it copies from.
func (l *Ledger) ForgetBills(ctx context.Context, before time.Time) (int64, error) {
	var n int64
	err := l.write(ctx, "forget bills", "", func(w *wtx) error {
		res, err := w.stmt(sForgetBills).ExecContext(w.ctx, before.UnixNano())
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	return n, err
}
