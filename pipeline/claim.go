package pipeline

import (
	"context"

	"github.com/journalship/journalship/chunk"
	"github.com/journalship/journalship/journalfile"
	"github.com/journalship/journalship/ledger"
)

// claimer is a ledger that locks files for their shipper and tells what
// is shipped (*ledger.Ledger). A ledger without it claims nothing.
type claimer interface {
	LockFiles(ctx context.Context, paths []string) (context.Context, func(), error)
	FilesOf(ctx context.Context, paths []string) (map[string]ledger.FileState, error)
}

// claim takes the shipping lock of every file of recs and drops the
// records whose bytes the ledger already holds for the file the path
// names now: lines another shipper sent (a `journalship ship` run, the
// finalizer) or an earlier delivery of the same chunk. The locks are held
// until release is called, after the ledger has recorded this flush, so
// two shippers never send the same byte range at the same time. The
// ledger is asked once for all the files, under their locks. recs is not
// modified; when some records are dropped the kept ones are copied into
// w.kept (reused from flush to flush). The identities of the files whose
// lines claim checked on disk are kept in w.verified, for the ledger.
func (p *Pipeline) claim(ctx context.Context, recs []chunk.Record, w *work) (context.Context, []chunk.Record, func(), error) {
	clear(w.verified)
	c, ok := p.deps.Ledger.(claimer)
	if !ok {
		return ctx, recs, func() {}, nil
	}
	paths := filesOf(recs)
	if len(paths) == 0 {
		return ctx, recs, func() {}, nil
	}
	ctx, release, err := c.LockFiles(ctx, paths)
	if err != nil {
		return ctx, nil, nil, err
	}
	states, err := c.FilesOf(ctx, paths)
	if err != nil {
		release()
		return ctx, nil, nil, err
	}
	shipped := map[string][]ledger.Range{}
	for path, e := range edgesOf(recs, states) {
		if rs := w.shippedOf(path, states[path], &recs[e[0]], &recs[e[1]]); len(rs) > 0 {
			shipped[path] = rs
		}
	}
	if len(shipped) == 0 {
		return ctx, recs, release, nil
	}
	kept := w.kept[:0]
	for _, r := range recs {
		if r.HasOffset && ledger.Covered(shipped[string(r.Path)], r.Offset, r.Offset+lineLen(&r)+1) {
			continue
		}
		kept = append(kept, r)
	}
	for i := range kept {
		kept[i].Index = i
	}
	w.kept = kept
	return ctx, kept, release, nil
}

// edgesOf returns, for each file of states that has ranges, the indexes
// in recs of its records with the lowest and the highest offset: one pass
// over the chunk, whatever the number of files.
func edgesOf(recs []chunk.Record, states map[string]ledger.FileState) map[string]*[2]int {
	var edges map[string]*[2]int // nil while no file has ranges
	for i := range recs {
		r := &recs[i]
		if !r.HasOffset || len(states[string(r.Path)].Ranges) == 0 {
			continue
		}
		e := edges[string(r.Path)] // a lookup by the bytes: no copy of the path
		switch {
		case e == nil:
			if edges == nil {
				edges = map[string]*[2]int{}
			}
			edges[string(r.Path)] = &[2]int{i, i} // once per file
		case r.Offset < recs[e[0]].Offset:
			e[0] = i
		case r.Offset > recs[e[1]].Offset:
			e[1] = i
		}
	}
	return edges
}

// shippedOf returns the ranges the ledger holds for the file at path, or
// none when they are not known to be of the file these records were read
// from (then every line is shipped: a duplicate, never a loss). Both must
// hold: the ledger's ranges are of the file the path names now (identity),
// and that file holds the records' first and last lines (first, last) at
// their offsets (a chunk of a file since replaced, retried after an
// outage, must not be dropped against the new file's ranges). The
// identity read is kept in w.verified.
func (w *work) shippedOf(path string, st ledger.FileState, first, last *chunk.Record) []ledger.Range {
	id, err := journalfile.HoldsLines(path, lineOf(first), lineOf(last))
	if err != nil {
		return nil
	}
	w.verified[path] = id
	if !journalfile.Same(st.Identity, id) {
		return nil
	}
	return st.Ranges
}

// lineOf is the record's line as read from its file.
func lineOf(r *chunk.Record) journalfile.Line {
	return journalfile.Line{Offset: r.Offset, Text: r.Line, Size: r.Cut}
}

// filesOf returns the distinct paths of recs that have an offset. A
// chunk's records come file by file, so a path is compared with the last
// one seen before the set.
func filesOf(recs []chunk.Record) []string {
	var paths []string
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
		paths = append(paths, path)
	}
	return paths
}
