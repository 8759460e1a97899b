package backfill

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/journalship/journalship/chunk"
	"github.com/journalship/journalship/journalfile"
	"github.com/journalship/journalship/ledger"
)

// batch accumulates lines of one file. Lines are kept as offsets into buf
// until the batch is sent, because buf may move while it grows.
type batch struct {
	buf   []byte
	spans []span
	recs  []chunk.Record
}

type span struct {
	off        int64
	start, end int
	cut        int64 // the line's full length when only its start is held
}

func (b *batch) reset() {
	b.buf, b.spans, b.recs = b.buf[:0], b.spans[:0], b.recs[:0]
}

func (b *batch) records(path []byte, now time.Time) []chunk.Record {
	for _, s := range b.spans {
		b.recs = append(b.recs, chunk.Record{Time: now, Line: b.buf[s.start:s.end:s.end], Path: path,
			Offset: s.off, HasOffset: true, Index: len(b.recs), Cut: s.cut})
	}
	return b.recs
}

// shipFile ships the complete, not yet shipped lines of one file, the way
// Fluent Bit's tail input would read them: no newline, a CRLF's \r
// removed, empty lines skipped, the last line only once it has its \n.
func (r *Runner) shipFile(ctx context.Context, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("backfill: %w", err)
	}
	defer f.Close()
	if l, ok := r.ledger.(Locker); ok {
		// Another shipper of this file (a second `journalship ship`, the
		// finalizer, the plugin) waits while this one reads the ledger,
		// ships and records: nothing is sent twice at the same time.
		locked, unlock, err := l.LockFile(ctx, path)
		if err != nil {
			return fmt.Errorf("backfill: %w", err)
		}
		defer unlock()
		ctx = locked
	}
	var shipped []ledger.Range
	if r.ledger != nil {
		st, err := r.ledger.File(ctx, path)
		if err != nil {
			return fmt.Errorf("backfill: ledger for %s: %w", path, err)
		}
		id, err := journalfile.IdentityOfFile(f)
		if err != nil {
			return fmt.Errorf("backfill: %w", err)
		}
		// Ranges recorded for another file under this path (replaced,
		// rotated), or reaching past its end (truncated in place), say
		// nothing of this one: it is shipped from its start.
		if fi, err := f.Stat(); err == nil && journalfile.Same(st.Identity, id) && ledger.End(st.Ranges) <= fi.Size() {
			shipped = st.Ranges
		}
	}
	br := bufio.NewReaderSize(f, 1<<20)
	var b batch
	var off int64
	var long []byte
	var partLen int64 // bytes of the current line read in earlier parts
	cut := false      // the current line is over MaxLineBytes: only its start is kept
	pathBytes := []byte(path)
	for {
		chunkPart, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// A line over MaxLineBytes is not held whole: its first
			// bytes and its size go to the dead-letter file, the rest of
			// the file ships.
			partLen += int64(len(chunkPart))
			if cut = cut || len(long)+len(chunkPart) > r.cfg.MaxLineBytes; cut {
				long = append(long, chunkPart[:min(len(chunkPart), max(0, cutPrefix-len(long)))]...)
				long = long[:min(len(long), cutPrefix)]
				continue
			}
			long = append(long, chunkPart...)
			continue
		}
		line := chunkPart
		if len(long) > 0 && !cut {
			line = append(long, chunkPart...)
		}
		if errors.Is(err, io.EOF) {
			if len(line) > 0 || cut {
				r.stats.PartialTails++
			}
			break
		}
		if err != nil {
			return fmt.Errorf("backfill: read %s at offset %d: %w", path, off, err)
		}
		if cut {
			full := partLen + int64(len(chunkPart))
			r.addCut(&b, long, off, full, shipped)
			off += full
			long, partLen, cut = long[:0], 0, false
		} else {
			partLen = 0
			r.addLine(&b, line, off, shipped)
			off += int64(len(line))
			long = long[:0]
		}
		if len(b.spans) >= r.cfg.BatchLines || len(b.buf) >= r.cfg.BatchBytes {
			if err := r.flush(ctx, &b, pathBytes, path); err != nil {
				return err
			}
		}
	}
	return r.flush(ctx, &b, pathBytes, path)
}

// addLine adds a line (with its \n) at off unless it is empty or shipped.
func (r *Runner) addLine(b *batch, line []byte, off int64, shipped []ledger.Range) {
	end := off + int64(len(line))
	text := line[:len(line)-1]
	if n := len(text); n > 0 && text[n-1] == '\r' {
		text = text[:n-1]
	}
	if len(text) == 0 {
		return
	}
	if ledger.Covered(shipped, off, end) {
		r.stats.Skipped++
		return
	}
	start := len(b.buf)
	b.buf = append(b.buf, text...)
	b.spans = append(b.spans, span{off: off, start: start, end: len(b.buf)})
}

// cutPrefix is how much of a line over MaxLineBytes is kept for its dead
// letter.
const cutPrefix = 4096

// addCut adds a line of full bytes (with its \n) at off of which only
// prefix is held, unless it is shipped already.
func (r *Runner) addCut(b *batch, prefix []byte, off, full int64, shipped []ledger.Range) {
	if ledger.Covered(shipped, off, off+full) {
		r.stats.Skipped++
		return
	}
	start := len(b.buf)
	b.buf = append(b.buf, prefix...)
	b.spans = append(b.spans, span{off: off, start: start, end: len(b.buf), cut: full - 1})
}

func (r *Runner) flush(ctx context.Context, b *batch, pathBytes []byte, path string) error {
	if len(b.spans) == 0 {
		return nil
	}
	recs := b.records(pathBytes, time.Now())
	where := fmt.Sprintf("%s offsets %d-%d", path, b.spans[0].off, b.spans[len(b.spans)-1].off)
	if err := r.send(ctx, recs, where); err != nil {
		return err
	}
	b.reset()
	r.progress(false)
	return nil
}
