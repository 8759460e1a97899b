package ledger

import (
	"context"
)

// writeReq is one write call (Record, MarkFinished, Forget) waiting to be
// committed.
type writeReq struct {
	ctx  context.Context
	fn   func(*wtx) error
	done chan error // receives the call's outcome, buffered
}

// write runs fn in a write transaction and returns once that transaction
// has committed (or failed).
//
// Group commit: calls that arrive while this process's previous write
// transaction is committing wait, and the first of them to get the write
// slot commits all of them in one transaction, so they share one fsync.
// Each call stays atomic: with more than one call in a transaction, each
// runs inside its own savepoint, and a call that fails on its own (a
// refused MarkFinished) is rolled back to it without affecting the others.
// A failure of the whole transaction (busy, I/O, corrupt) fails every call
// in it, and nothing of any of them is committed.
//
// ctx is honored until the call is taken into a transaction; a call whose
// ctx ends before that returns ErrCanceled and has no effect.
func (l *Ledger) write(ctx context.Context, op, path string, fn func(*wtx) error) error {
	if err := l.check(op, path); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return l.fail(op, path, err)
	}
	c := l.c
	req := &writeReq{ctx: ctx, fn: fn, done: make(chan error, 1)}
	c.enqueue(req)
	select {
	case c.wsem <- struct{}{}:
		c.commitPending()
		<-c.wsem
	case err := <-req.done:
		return l.fail(op, path, err)
	case <-ctx.Done():
		if c.withdraw(req) {
			return l.fail(op, path, ctx.Err())
		}
	}
	return l.fail(op, path, <-req.done)
}

// enqueue adds req to the calls waiting for a transaction.
func (c *core) enqueue(req *writeReq) {
	c.qmu.Lock()
	c.pending = append(c.pending, req)
	c.qmu.Unlock()
}

// withdraw removes req if no transaction has taken it yet.
func (c *core) withdraw(req *writeReq) bool {
	c.qmu.Lock()
	defer c.qmu.Unlock()
	for i, r := range c.pending {
		if r == req {
			c.pending = append(c.pending[:i], c.pending[i+1:]...)
			return true
		}
	}
	return false
}

// commitPending takes every waiting call and commits them in one
// transaction. The caller holds the write slot.
func (c *core) commitPending() {
	c.qmu.Lock()
	batch := c.pending
	c.pending = nil
	c.qmu.Unlock()
	live := batch[:0]
	for _, r := range batch {
		if err := r.ctx.Err(); err != nil {
			r.done <- err
			continue
		}
		live = append(live, r)
	}
	if len(live) == 0 {
		return
	}
	for i, err := range c.runBatch(live) {
		live[i].done <- err
	}
}

// runBatch applies reqs in one transaction and returns each call's outcome.
// Statements run under a context of their own, so that one caller giving up
// cannot abort the transaction of the others; waiting for another
// process's lock is bounded by the busy timeout.
func (c *core) runBatch(reqs []*writeReq) []error {
	errs := make([]error, len(reqs))
	fail := func(err error) []error {
		for i := range errs {
			if errs[i] == nil {
				errs[i] = err
			}
		}
		return errs
	}
	ctx := context.Background()
	tx, err := c.db.BeginTx(ctx, nil)
	if err != nil {
		return fail(err)
	}
	w := &wtx{ctx: ctx, tx: tx, c: c}
	for i, r := range reqs {
		callErr, txErr := apply(w, r, len(reqs) > 1)
		if txErr != nil {
			_ = tx.Rollback()
			return fail(txErr)
		}
		errs[i] = callErr
	}
	if err := tx.Commit(); err != nil {
		return fail(err)
	}
	return errs
}

// apply runs one call. Alone in its transaction, any failure is the
// transaction's (txErr: roll back). Sharing it, the call runs inside a
// savepoint: a call-local failure is rolled back to the savepoint and
// returned as callErr, and any other failure, including one managing the
// savepoint, is txErr.
func apply(w *wtx, r *writeReq, shared bool) (callErr, txErr error) {
	if !shared {
		return nil, r.fn(w)
	}
	if err := w.exec(sSavepoint); err != nil {
		return nil, err
	}
	callErr = r.fn(w)
	if callErr != nil && !callLocal(callErr) {
		return nil, callErr
	}
	if callErr != nil {
		if err := w.exec(sRollbackTo); err != nil {
			return nil, err
		}
	}
	if err := w.exec(sRelease); err != nil {
		return nil, err
	}
	return callErr, nil
}

// callLocal reports whether err concerns one call only (a refusal, a bad
// argument, a failed statement) rather than the transaction or database
// (busy, I/O, corruption, cancellation), which fail every call.
func callLocal(err error) bool {
	switch kindOf(err) {
	case ErrBusy, ErrIO, ErrCanceled, ErrCorrupt, ErrUnusable, ErrClosed:
		return false
	}
	return true
}
