package finalize

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

	"github.com/journalship/journalship/journalfile"
	"github.com/journalship/journalship/ledger"
)

// adopt gives the file at path the shipped ranges the ledger keeps for it
// under another path: a journal renamed (Codex's archive moves a rollout;
// Fluent Bit's tail follows a rename within its pattern and reports the
// new name from there on) is the same file, with the same device, inode
// and first line, and what was shipped of it under its old name is in
// Loki. Without this its lines would ship again under the new name. A
// path gone, or holding another file now, loses its row; one that still
// holds it (a hard link), or cannot be read, keeps it.
//
// A deleted file's inode is often given to the next file created, and a
// journal's first line may repeat another's: the file must also have been
// born (statx btime, which a rename keeps) by the time the other path's
// row last changed, and hold every byte of its ranges. Where the file
// system keeps no birth time nothing is adopted (the lines then ship
// again: a duplicate, never a loss).
//
// s is the file as read; st its state, and the state returned has the
// adopted ranges. Only a file with bytes not yet shipped before its last
// range looks.
func (f *Finalizer) adopt(ctx context.Context, path string, s snapshot, st ledger.FileState, o *Outcome) (ledger.FileState, error) {
	id := s.id
	if !id.HasFingerprint() || (len(st.Ranges) == 1 && st.Ranges[0].Start == 0) {
		return st, nil
	}
	born, ok := journalfile.Born(path)
	if !ok {
		return st, nil
	}
	others, err := f.ledger.FilesOfIdentity(ctx, id)
	if err != nil {
		return st, fmt.Errorf("finalize: files like %s: %w", path, err)
	}
	for _, other := range others {
		if other.Path == path || other.Identity != id || len(other.Ranges) == 0 ||
			born.After(other.UpdatedAt) || ledger.End(other.Ranges) > s.size {
			continue
		}
		segs := make([]ledger.Segment, 0, len(other.Ranges))
		for _, r := range other.Ranges {
			segs = append(segs, ledger.Segment{Path: path, Identity: id, Start: r.Start, End: r.End, Lines: r.Lines, FirstSeq: r.FirstSeq, LastSeq: r.LastSeq})
		}
		if err := f.ledger.Record(ctx, segs); err != nil {
			return st, fmt.Errorf("finalize: adopting the ranges of %s for %s: %w", other.Path, path, err)
		}
		if now, err := journalfile.IdentityOf(other.Path); errors.Is(err, fs.ErrNotExist) || err == nil && now != id {
			if err := f.ledger.Forget(ctx, other.Path); err != nil {
				return st, fmt.Errorf("finalize: forgetting %s, renamed %s: %w", other.Path, path, err)
			}
		}
		o.Adopted = append(o.Adopted, other.Path)
	}
	if len(o.Adopted) == 0 {
		return st, nil
	}
	return f.ledger.File(ctx, path)
}
