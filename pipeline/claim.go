package pipeline

import (
	"cmp"
	"context"
	"slices"

	"github.com/journalship/journalship/chunk"
	"github.com/journalship/journalship/journalfile"
	"github.com/journalship/journalship/ledger"
)

// claimer is a ledger that locks files for their shipper and tells what
// is shipped (*ledger.Ledger). A ledger without it claims nothing.
type claimer interface {
	LockFile(ctx context.Context, path string) (context.Context, func(), error)
	File(ctx context.Context, path string) (ledger.FileState, error)
}

// claim takes the shipping lock of every file of recs, in the ledger's
// lock order, and drops the records whose bytes the ledger already holds
// for the file the path names now: lines another shipper sent (a
// `journalship ship` run, the finalizer) or an earlier delivery of the
// same chunk. The locks are held until release is called, after the
// ledger has recorded this flush, so two shippers never send the same
// byte range at the same time. recs is not modified; when some records
// are dropped the kept ones are copied into *buf (reused from flush to
// flush).
func (p *Pipeline) claim(ctx context.Context, recs []chunk.Record, buf *[]chunk.Record) (context.Context, []chunk.Record, func(), error) {
	c, ok := p.deps.Ledger.(claimer)
	if !ok {
		return ctx, recs, func() {}, nil
	}
	paths := filesOf(recs)
	var unlocks []func()
	release := func() {
		for i := len(unlocks) - 1; i >= 0; i-- {
			unlocks[i]()
		}
	}
	shipped := map[string][]ledger.Range{}
	for _, path := range paths {
		locked, unlock, err := c.LockFile(ctx, path)
		if err != nil {
			release()
			return ctx, nil, nil, err
		}
		ctx = locked
		unlocks = append(unlocks, unlock)
		if rs := p.shippedOf(ctx, c, path, recs); len(rs) > 0 {
			shipped[path] = rs
		}
	}
	if len(shipped) == 0 {
		return ctx, recs, release, nil
	}
	kept := (*buf)[:0]
	for _, r := range recs {
		if r.HasOffset && ledger.Covered(shipped[string(r.Path)], r.Offset, r.Offset+lineLen(&r)+1) {
			continue
		}
		kept = append(kept, r)
	}
	for i := range kept {
		kept[i].Index = i
	}
	*buf = kept
	return ctx, kept, release, nil
}

// shippedOf returns the ranges the ledger holds for the file at path, or
// none when they are not known to be of the file these records were read
// from (then every line is shipped: a duplicate, never a loss). Both must
// hold: the ledger's ranges are of the file the path names now (identity),
// and that file holds the records' first and last lines at their offsets
// (a chunk of a file since replaced, retried after an outage, must not be
// dropped against the new file's ranges).
func (p *Pipeline) shippedOf(ctx context.Context, c claimer, path string, recs []chunk.Record) []ledger.Range {
	st, err := c.File(ctx, path)
	if err != nil || len(st.Ranges) == 0 {
		return nil
	}
	first, last := -1, -1
	for i := range recs {
		if recs[i].HasOffset && string(recs[i].Path) == path {
			if first < 0 || recs[i].Offset < recs[first].Offset {
				first = i
			}
			if last < 0 || recs[i].Offset > recs[last].Offset {
				last = i
			}
		}
	}
	for _, i := range []int{first, last} {
		r := &recs[i]
		id, err := journalfile.Holds(path, r.Offset, r.Line, r.Cut)
		if err != nil || !journalfile.Same(st.Identity, id) {
			return nil
		}
	}
	return st.Ranges
}

// filesOf returns the distinct paths of recs in the ledger's lock order.
// A chunk's records come file by file, so a path is compared with the
// last one seen before the set; each path's lock order is computed once.
func filesOf(recs []chunk.Record) []string {
	type file struct {
		path  string
		order int
	}
	var files []file
	seen := map[string]bool{}
	var last []byte
	for i := range recs {
		p := recs[i].Path
		if !recs[i].HasOffset || len(p) == 0 || string(p) == string(last) || seen[string(p)] {
			continue
		}
		last = p
		path := string(p)
		seen[path] = true
		files = append(files, file{path, ledger.LockOrder(path)})
	}
	slices.SortFunc(files, func(a, b file) int {
		return cmp.Or(cmp.Compare(a.order, b.order), cmp.Compare(a.path, b.path))
	})
	paths := make([]string, len(files))
	for i, f := range files {
		paths[i] = f.path
	}
	return paths
}
