package pipeline

import (
	"context"
	"sync"

	"github.com/journalship/journalship/chunk"
	"github.com/journalship/journalship/format"
	"github.com/journalship/journalship/ledger"
)

// Billed units counted once per node (format.Event.Bill). A runtime that
// copies earlier responses into another session's journal (Claude Code's
// resumed, forked and continued sessions) writes one bill in several
// files. The first journal to ship a unit claims it in the ledger before
// its push; the unit's lines in any other journal ship no usage and are
// annotated counted_elsewhere. A claim is per journal path, so a retry of
// the owner's lines counts them again as the first time, and claims
// survive the owner's deletion (a copy shipped a week later is still a
// copy).

// billMemory bounds the claims a process remembers; past it they are read
// from the ledger again.
const billMemory = 1 << 17

// biller is a ledger that keeps the node's claims (*ledger.Ledger).
type biller interface {
	AllBills(ctx context.Context, limit int) ([]ledger.Bill, bool, error)
	BillOwner(ctx context.Context, key uint64) (string, bool, error)
	ClaimBills(ctx context.Context, bills []ledger.Bill) ([]ledger.Bill, error)
	ReleaseBills(ctx context.Context, bills []ledger.Bill) error
}

// bills remembers the owners of the units this process saw claimed.
type bills struct {
	store  biller // nil: the process's memory is the only claim
	load   sync.Once
	mu     sync.Mutex
	owners map[uint64]string
	paths  map[string]string // the owners' paths, one copy each
	// all: owners holds every claim the ledger kept when it was first
	// asked (loadAll), with those made and learned since, so a unit it
	// does not hold is claimed without asking the ledger. One another
	// process claims meanwhile is found by the claim itself: ClaimBills
	// reports it and the flush is judged again.
	all bool
	// loaded are the units whose owner was read by loadAll and not asked
	// for since: another process may have given up its claim meanwhile
	// (its lines refused for good) and a copy claimed the unit, so such an
	// owner is asked for once before a line counts on its word, whether
	// the line is its journal's or a copy's.
	loaded map[uint64]struct{}
}

func newBills(l Ledger) *bills {
	b := &bills{owners: map[uint64]string{}, paths: map[string]string{}}
	b.store, _ = l.(biller)
	return b
}

// owner returns the journal a unit is counted under, claiming it for path
// when nobody has and no ledger keeps claims; ok is false when the
// ledger knows no owner (the flush claims it before its push).
func (b *bills) owner(ctx context.Context, key uint64, path []byte) (owner string, ok bool) {
	b.loadAll(ctx)
	b.mu.Lock()
	owner, ok = b.owners[key]
	if !ok && b.store == nil {
		owner, ok = b.path(path), true
		b.remember(key, owner)
	}
	_, loaded := b.loaded[key]
	all := b.all
	b.mu.Unlock()
	switch {
	case b.store == nil, ok && !loaded:
		return owner, ok
	case !ok && all:
		return "", false
	}
	owner, ok, err := b.store.BillOwner(ctx, key)
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.loaded, key)
	if err != nil || !ok {
		delete(b.owners, key) // given up since the load, or unknown
		return "", false      // claimed before the push, which fails over a ledger error
	}
	owner = b.path([]byte(owner))
	b.remember(key, owner)
	return owner, true
}

// loadAll reads every claim the ledger keeps, once, when they fill at
// most half the memory: from then on a unit is looked up in memory only.
func (b *bills) loadAll(ctx context.Context) {
	if b.store == nil {
		return
	}
	b.load.Do(func() {
		claims, complete, err := b.store.AllBills(ctx, billMemory/2)
		if err != nil || !complete {
			return // each unit is asked for
		}
		b.mu.Lock()
		defer b.mu.Unlock()
		b.loaded = make(map[uint64]struct{}, len(claims))
		for _, c := range claims {
			b.owners[c.Key] = b.path([]byte(c.Owner))
			b.loaded[c.Key] = struct{}{}
		}
		b.all = true
	})
}

// path returns the one copy of path the memory keeps; b.mu is held.
func (b *bills) path(path []byte) string {
	if p, ok := b.paths[string(path)]; ok {
		return p
	}
	p := string(path)
	b.paths[p] = p
	return p
}

// remember keeps key's owner; b.mu is held.
func (b *bills) remember(key uint64, owner string) {
	if len(b.owners) >= billMemory {
		clear(b.owners) // read again from the ledger when needed
		clear(b.paths)
		clear(b.loaded)
		b.all = false
	}
	b.owners[key] = owner
	delete(b.loaded, key) // learned now
}

// claim writes the flush's claims before its push. When another journal
// claimed one of them first (another worker or process shipping a copy at
// the same time), the flush must be judged again: its owner is
// remembered and the error asks for a retry.
func (b *bills) claim(ctx context.Context, claims []ledger.Bill) error {
	if len(claims) == 0 || b.store == nil {
		return nil
	}
	taken, err := b.store.ClaimBills(ctx, claims)
	if err != nil {
		return &RetryError{Cause: "ledger", Err: err}
	}
	b.mu.Lock()
	for _, c := range claims {
		b.remember(c.Key, c.Owner)
	}
	for _, t := range taken {
		b.remember(t.Key, t.Owner)
	}
	b.mu.Unlock()
	if len(taken) > 0 {
		e := errClaimedElsewhere{owner: taken[0].Owner}
		for _, c := range claims {
			if c.Key == taken[0].Key {
				e.path = c.Owner
			}
		}
		return &RetryError{Cause: causeClaimedElsewhere, Err: e}
	}
	return nil
}

// causeClaimedElsewhere is the retry cause of a flush that counted a unit
// another journal claimed meanwhile: the flush is judged again, nothing
// is wrong with the ledger.
const causeClaimedElsewhere = "claimed_elsewhere"

// releaseBills gives up the flush's claims of units none of whose lines in the
// flush reached Loki (refused for good, dead-lettered after the claim): a
// copy elsewhere may count them. Best effort, after the ledger recorded
// the flush: a claim that stays only keeps a copy from counting.
func (p *Pipeline) releaseBills(ctx context.Context, w *work) {
	if len(w.claims) == 0 {
		return
	}
	stored := map[uint64]bool{}
	for i := range w.items {
		if it := &w.items[i]; it.bill != 0 && it.sent && it.dlReason == "" {
			stored[it.bill] = true
		}
	}
	var lost []ledger.Bill
	for _, c := range w.claims {
		if !stored[c.Key] {
			lost = append(lost, c)
		}
	}
	if len(lost) == 0 {
		return
	}
	b := p.bills
	b.mu.Lock()
	for _, c := range lost {
		if b.owners[c.Key] == c.Owner {
			delete(b.owners, c.Key)
		}
	}
	b.mu.Unlock()
	if b.store == nil {
		return
	}
	if err := b.store.ReleaseBills(ctx, lost); err != nil {
		p.deps.Logger.Warnf("file=%s: %d responses claimed by lines that did not reach Loki stay claimed (%v): their copies elsewhere count nothing", lost[0].Owner, len(lost), err)
	}
}

// errClaimedElsewhere: a unit the flush counted was claimed meanwhile by
// another journal.
type errClaimedElsewhere struct{ path, owner string }

func (e errClaimedElsewhere) Error() string {
	return "a response " + e.path + " counted was claimed meanwhile by " + e.owner + "; judged again"
}

// bill decides whether the line of record r counts its unit key: not
// when another journal owns it (its usage and cost are dropped and it is
// annotated counted_elsewhere).
func (p *Pipeline) bill(w *work, r *chunk.Record, it *item, key uint64) {
	if len(r.Path) == 0 {
		return // no journal to claim it for
	}
	owner, ok := p.bills.owner(w.ctx, key, r.Path)
	if !ok {
		// Claimed by an earlier line of this flush, or claimed now: the
		// original and its copy in one chunk (a backfill) agree at once.
		owner, ok = w.claimed[key]
	}
	switch {
	case !ok:
		if w.claimed == nil {
			w.claimed = map[uint64]string{}
		}
		p.bills.mu.Lock()
		w.claimed[key] = p.bills.path(r.Path)
		p.bills.mu.Unlock()
		w.claims = append(w.claims, ledger.Bill{Key: key, Owner: w.claimed[key]})
		it.bill = key
	case owner != string(r.Path):
		it.usage, it.cost, it.costModel = format.Usage{}, 0, ""
		it.annots = it.annots&^aPriceUnknown | aCountedElsewhere // it prices nothing
	default:
		it.bill = key
	}
}
