package chunk

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tinylib/msgp/msgp"
)

// variedEvents mixes tail events with metadata, unknown nested keys, bin
// values and a long line, so cuts land in every kind of element.
func variedEvents() []Event {
	evs := tailEvents(3)
	evs[1].Metadata = []Field{{"otel", msgp.Raw{0x81, 0xa1, 'k', 0x92, 0x01, 0xa1, 'v'}}}
	evs[1].Fields = append([]Field{{"extra", msgp.Raw{0x82, 0xa1, 'a', 0x93, 0x01, 0xc3, 0xc0, 0xa1, 'b', 0xcb, 0, 0, 0, 0, 0, 0, 0, 0}}}, evs[1].Fields...)
	evs[2].Fields = []Field{{"file", []byte("/bin/path")}, {"offset", uint64(1 << 40)}, {"log", strings.Repeat("é", 200)}}
	return evs
}

func TestDecodeTruncatedAtEveryByte(t *testing.T) {
	for _, f := range []Format{FormatV2, FormatV2Direct, FormatV1} {
		t.Run(f.String(), func(t *testing.T) {
			var full []byte
			var ends []int
			for _, ev := range variedEvents() {
				full = AppendEvent(full, ev, f)
				ends = append(ends, len(full))
			}
			all, err := decodeAll(t, DefaultConfig(), full)
			require.NoError(t, err)
			require.Len(t, all, len(ends))

			for cut := 0; cut < len(full); cut++ {
				data := append([]byte(nil), full[:cut]...) // exact length, no spare capacity
				got, err := decodeAll(t, DefaultConfig(), data)

				complete := 0
				for complete < len(ends) && ends[complete] <= cut {
					complete++
				}
				require.Equal(t, len(all[:complete]), len(got), "cut %d: the good events before the break", cut)
				if complete > 0 {
					require.Equal(t, all[:complete], got, "cut %d", cut)
				}
				prevEnd := 0
				if complete > 0 {
					prevEnd = ends[complete-1]
				}
				if cut == prevEnd {
					require.NoError(t, err, "cut %d is an event boundary", cut)
					continue
				}
				var de *DecodeError
				require.True(t, errors.As(err, &de), "cut %d: want *DecodeError, got %v", cut, err)
				assert.Equal(t, complete, de.Index, "cut %d", cut)
				assert.Equal(t, prevEnd, de.Start, "cut %d", cut)
				assert.Contains(t, de.Reason, "truncated", "cut %d", cut)
				assert.True(t, de.Permanent())
			}
		})
	}
}
