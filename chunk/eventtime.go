package chunk

import (
	"encoding/binary"
	"errors"
	"math"
	"time"

	"github.com/tinylib/msgp/msgp"
)

// EventTimeExtension is the msgpack extension type of Fluent Bit's
// EventTime (the Fluentd forward protocol's EventTime).
const EventTimeExtension = 0

// Group marker seconds of an EventTime: -1 and -2 as uint32
// (FLB_LOG_EVENT_GROUP_START / FLB_LOG_EVENT_GROUP_END), with 0 nanoseconds.
const (
	groupStartSeconds = math.MaxUint32
	groupEndSeconds   = math.MaxUint32 - 1
)

var errEventTimeSize = errors.New("EventTime payload is not 8 bytes")

// eventTime is the msgp.Extension for ext type 0: big-endian uint32 seconds
// then uint32 nanoseconds.
type eventTime struct{ sec, nsec uint32 }

// ExtensionType implements msgp.Extension.
func (e *eventTime) ExtensionType() int8 { return EventTimeExtension }

// Len implements msgp.Extension.
func (e *eventTime) Len() int { return 8 }

// MarshalBinaryTo implements msgp.Extension.
func (e *eventTime) MarshalBinaryTo(b []byte) error {
	binary.BigEndian.PutUint32(b, e.sec)
	binary.BigEndian.PutUint32(b[4:], e.nsec)
	return nil
}

// UnmarshalBinary implements msgp.Extension.
func (e *eventTime) UnmarshalBinary(b []byte) error {
	if len(b) != 8 {
		return errEventTimeSize
	}
	e.sec = binary.BigEndian.Uint32(b)
	e.nsec = binary.BigEndian.Uint32(b[4:])
	return nil
}

func (e *eventTime) isGroupMarker() bool {
	return e.nsec == 0 && (e.sec == groupStartSeconds || e.sec == groupEndSeconds)
}

// maxFloatSeconds bounds float times so the int64 conversion is defined.
const maxFloatSeconds = 1 << 62

// readTime decodes the event time into r.Time and reports a group marker.
func (d *Decoder) readTime(b []byte, r *Record) ([]byte, bool, *DecodeError) {
	switch msgp.NextType(b) {
	case msgp.ExtensionType, msgp.TimeType, msgp.Complex64Type, msgp.Complex128Type:
		rest, err := msgp.ReadExtensionBytes(b, &d.et)
		if err != nil {
			return nil, false, d.failMsgp(b, "time", err)
		}
		if d.et.isGroupMarker() {
			return rest, true, nil
		}
		r.Time = time.Unix(int64(d.et.sec), int64(d.et.nsec)).UTC()
		return rest, false, nil
	case msgp.IntType:
		sec, rest, err := msgp.ReadInt64Bytes(b)
		if err != nil {
			return nil, false, d.failMsgp(b, "time", err)
		}
		r.Time = time.Unix(sec, 0).UTC()
		return rest, false, nil
	case msgp.UintType:
		sec, rest, err := msgp.ReadUint64Bytes(b)
		if err != nil {
			return nil, false, d.failMsgp(b, "time", err)
		}
		if sec > math.MaxInt64 {
			return nil, false, d.fail(b, "time integer "+utoa(sec)+" overflows int64")
		}
		r.Time = time.Unix(int64(sec), 0).UTC()
		return rest, false, nil
	case msgp.Float64Type, msgp.Float32Type:
		return d.floatTime(b, r)
	}
	if len(b) == 0 {
		return nil, false, d.fail(b, "truncated before time")
	}
	return nil, false, d.fail(b, "time is "+describe(b)+", want EventTime (ext 0), integer or float")
}

func (d *Decoder) floatTime(b []byte, r *Record) ([]byte, bool, *DecodeError) {
	f, rest, err := msgp.ReadFloat64Bytes(b)
	if err != nil {
		return nil, false, d.failMsgp(b, "time", err)
	}
	if math.IsNaN(f) || f > maxFloatSeconds || f < -maxFloatSeconds {
		return nil, false, d.fail(b, "time float is not a usable number of seconds")
	}
	sec, frac := math.Modf(f)
	r.Time = time.Unix(int64(sec), int64(math.Round(frac*1e9))).UTC()
	return rest, false, nil
}
