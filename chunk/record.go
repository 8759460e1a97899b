package chunk

import (
	"math"

	"github.com/tinylib/msgp/msgp"
)

// problems collects, per extracted key, why its last occurrence was
// unusable ("" when usable).
type problems struct {
	logSeen           bool
	log, path, offset string
}

// first returns the Problem to report: log first, then path, then offset.
func (p *problems) first(missingLog string) string {
	switch {
	case !p.logSeen:
		return missingLog
	case p.log != "":
		return p.log
	case p.path != "":
		return p.path
	}
	return p.offset
}

// record decodes the record map into r. A record that is readable but not a
// map sets r.Problem; only unreadable bytes are a DecodeError.
func (d *Decoder) record(b []byte, r *Record) ([]byte, *DecodeError) {
	if t := msgp.NextType(b); t != msgp.MapType {
		rest, err := msgp.Skip(b)
		if err != nil {
			return nil, d.failMsgp(b, "record", err)
		}
		r.Problem = "record is " + describe(b) + ", not map"
		return rest, nil
	}
	n, rest, err := msgp.ReadMapHeaderBytes(b)
	if err != nil {
		return nil, d.failMsgp(b, "record map header", err)
	}
	var p problems
	for i := uint32(0); i < n; i++ {
		var derr *DecodeError
		if rest, derr = d.field(rest, r, &p); derr != nil {
			return nil, derr
		}
	}
	r.Problem = p.first(d.missingLog)
	return rest, nil
}

// field decodes one key/value pair of the record map.
func (d *Decoder) field(b []byte, r *Record, p *problems) ([]byte, *DecodeError) {
	var key, rest []byte
	var err error
	skipped := false
	switch msgp.NextType(b) {
	case msgp.StrType:
		key, rest, err = msgp.ReadStringZC(b)
	case msgp.BinType:
		key, rest, err = msgp.ReadBytesZC(b)
	default: // a key that is not a string cannot match: skip the pair
		skipped = true
		if rest, err = msgp.Skip(b); err == nil {
			rest, err = msgp.Skip(rest)
		}
	}
	if err != nil {
		return nil, d.failMsgp(b, "record map", err)
	}
	var derr *DecodeError
	switch {
	case skipped:
		return rest, nil
	case string(key) == d.cfg.LogKey:
		p.logSeen = true
		rest, p.log, derr = d.text(rest, &r.Line, "log")
	case string(key) == d.cfg.PathKey:
		rest, p.path, derr = d.text(rest, &r.Path, "path")
	case string(key) == d.cfg.OffsetKey:
		rest, p.offset, derr = d.offset(rest, r)
	default:
		after, err := msgp.Skip(rest)
		if err != nil {
			return nil, d.failMsgp(rest, "record map", err)
		}
		rest = after
	}
	return rest, derr
}

// text reads a str or bin value into *dst without copying. Any other type
// is skipped, *dst is set to nil and a problem is returned.
func (d *Decoder) text(b []byte, dst *[]byte, role string) ([]byte, string, *DecodeError) {
	var v, rest []byte
	var err error
	switch msgp.NextType(b) {
	case msgp.StrType:
		v, rest, err = msgp.ReadStringZC(b)
	case msgp.BinType:
		v, rest, err = msgp.ReadBytesZC(b)
	default:
		if rest, err = msgp.Skip(b); err != nil {
			return nil, "", d.failMsgp(b, role+" value", err)
		}
		*dst = nil
		return rest, role + " value is " + describe(b) + ", not string", nil
	}
	if err != nil {
		return nil, "", d.failMsgp(b, role+" value", err)
	}
	*dst = v[:len(v):len(v)]
	return rest, "", nil
}

// offset reads any msgpack integer into r.Offset. A non-integer, negative or
// out-of-range value is skipped and returned as a problem.
func (d *Decoder) offset(b []byte, r *Record) ([]byte, string, *DecodeError) {
	r.Offset, r.HasOffset = 0, false
	switch msgp.NextType(b) {
	case msgp.IntType:
		v, rest, err := msgp.ReadInt64Bytes(b)
		if err != nil {
			return nil, "", d.failMsgp(b, "offset value", err)
		}
		if v < 0 {
			return rest, "offset value " + itoa(v) + " is negative", nil
		}
		r.Offset, r.HasOffset = v, true
		return rest, "", nil
	case msgp.UintType:
		u, rest, err := msgp.ReadUint64Bytes(b)
		if err != nil {
			return nil, "", d.failMsgp(b, "offset value", err)
		}
		if u > math.MaxInt64 {
			return rest, "offset value " + utoa(u) + " overflows int64", nil
		}
		r.Offset, r.HasOffset = int64(u), true
		return rest, "", nil
	}
	rest, err := msgp.Skip(b)
	if err != nil {
		return nil, "", d.failMsgp(b, "offset value", err)
	}
	return rest, "offset value is not an integer (" + describe(b) + ")", nil
}
