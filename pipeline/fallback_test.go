package pipeline

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTimelessLinesKeepTheirPlaceHoweverChunked: a file with no time of
// its own (a Claude Code stream-json capture) shipped in shuffled chunks
// of any size: every line is stamped at one file base plus its own byte
// offset, so its lines keep file order and a re-ship is the same entry.
func TestTimelessLinesKeepTheirPlaceHoweverChunked(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "projects", "-home-dev-app", "5c0375b4-1b3e-4d5a-8c6f-2e1d0c9b8a70.jsonl")
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	var lines []string
	for i := range 40 {
		lines = append(lines, `{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"`+strings.Repeat("x", i)+`"}},"session_id":"5c0375b4-1b3e-4d5a-8c6f-2e1d0c9b8a70","parent_tool_use_id":null,"uuid":"u-`+strconv.Itoa(i)+`"}`)
	}
	data := []byte(strings.Join(lines, "\n") + "\n")
	require.NoError(t, os.WriteFile(path, data, 0o644))
	// Written 20 minutes ago, and 3 hours ago: a time older than a
	// re-stamp would take, which the line keeps all the same.
	for k, seed := range []uint64{0, 1, 2, 3} {
		mtime := testNow.Add(-20 * time.Minute)
		if k%2 == 1 {
			mtime = testNow.Add(-3 * time.Hour)
		}
		require.NoError(t, os.Chtimes(path, mtime, mtime))
		e := newEnv(t, nil)
		recs := tailRecords(path, data, testNow)
		rng := rand.New(rand.NewPCG(seed, 1))
		var chunks [][]int
		for i := 0; i < len(recs); {
			n := 1 + rng.IntN(7)
			var idx []int
			for k := i; k < min(i+n, len(recs)); k++ {
				idx = append(idx, k)
			}
			chunks = append(chunks, idx)
			i += n
		}
		rng.Shuffle(len(chunks), func(a, b int) { chunks[a], chunks[b] = chunks[b], chunks[a] })
		for round := range 2 { // the second: a re-ship after the ledger forgot the file
			for _, idx := range chunks {
				part := tailRecords(path, data, testNow)
				var sub = part[:0:0]
				for _, k := range idx {
					sub = append(sub, part[k])
				}
				_, err := e.pipe.Ship(context.Background(), sub, "t")
				require.NoError(t, err)
			}
			if round == 0 {
				require.NoError(t, e.ledger.Forget(context.Background(), path))
			}
		}
		stamps := map[string]time.Time{}
		base := time.Time{}
		for _, en := range e.cap.entries() {
			off, err := strconv.ParseInt(en.md["byte_offset"], 10, 64)
			require.NoError(t, err)
			b := en.ts.Add(-time.Duration(off))
			if base.IsZero() {
				base = b
			}
			assert.True(t, b.Equal(base), "seed %d: the line at %d is at the file's base plus its offset", seed, off)
			if prev, ok := stamps[en.md["byte_offset"]]; ok {
				assert.True(t, prev.Equal(en.ts), "seed %d: a re-ship is the same entry", seed)
			}
			stamps[en.md["byte_offset"]] = en.ts
			assert.Contains(t, en.md["annotations"], "timestamp_fallback")
		}
		assert.Len(t, stamps, len(lines))
		assert.True(t, base.Equal(mtime) || base.Before(mtime), "seed %d: placed no later than the file's last write", seed)
		assert.True(t, base.After(mtime.Add(-time.Duration(len(data)))), "seed %d: at its last write, less the offset of the first line shipped", seed)
	}
}
