package chunk

import (
	"strconv"

	"github.com/tinylib/msgp/msgp"
)

// describe names the msgpack type at the start of b for messages, e.g.
// "msgpack int", "msgpack ext", "invalid byte 0xc1", "end of data".
func describe(b []byte) string {
	if len(b) == 0 {
		return "end of data"
	}
	switch t := msgp.NextType(b); t {
	case msgp.InvalidType:
		return "invalid byte 0x" + strconv.FormatUint(uint64(b[0]), 16)
	case msgp.ExtensionType, msgp.TimeType, msgp.Complex64Type, msgp.Complex128Type:
		return "msgpack ext"
	default:
		return "msgpack " + t.String()
	}
}

func itoa(i int64) string  { return strconv.FormatInt(i, 10) }
func utoa(u uint64) string { return strconv.FormatUint(u, 10) }
