package chunk

import (
	"time"

	"github.com/tinylib/msgp/msgp"
)

// Record is one event of a chunk. Slices point into the chunk buffer and are
// capped at their length, so appending to them never writes into the chunk.
type Record struct {
	// Time is the event time, in UTC.
	Time time.Time
	// Line is the LogKey value (str or bin).
	Line []byte
	// Path is the PathKey value, nil if absent.
	Path []byte
	// Offset is the OffsetKey value; meaningful only when HasOffset is true.
	Offset int64
	// HasOffset is true when the record carried a usable OffsetKey value.
	HasOffset bool
	// Problem is non-empty when the event was readable but unusable, e.g.
	// `missing log key "log"`, `log value is msgpack int, not string`,
	// `offset value is not an integer (msgpack str)`.
	Problem string
	// Index is the ordinal of the event in the chunk (0-based).
	Index int
	// Start is the byte position of the event in the chunk.
	Start int
	// Cut, when > 0, says Line holds only the first bytes of a line of Cut
	// bytes (without its newline) that was too long to hold in memory.
	// Never set by the decoder; the CLI's file reader sets it, and the
	// pipeline dead-letters such a line with its first bytes and size.
	Cut int64
}

// Decoder decodes chunks. It holds one reusable Record, so a Decoder must
// not be used by two goroutines at once; it is cheap to make one per flush
// or per worker.
type Decoder struct {
	cfg        Config
	missingLog string
	data       []byte // chunk being decoded, for error positions
	rec        Record
	et         eventTime
}

// NewDecoder returns a decoder for cfg, or the *ConfigError from Validate.
func NewDecoder(cfg Config) (*Decoder, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Decoder{cfg: cfg, missingLog: "missing log key " + quote(cfg.LogKey)}, nil
}

// Config returns the decoder's configuration.
func (d *Decoder) Config() Config { return d.cfg }

// Decode calls fn for every event of data, in order. The *Record is reused
// between calls; fn must not keep it (the slices in it stay valid as long as
// data does). If fn returns an error Decode stops and returns it.
//
// A structurally broken chunk (truncated, not an array, wrong arity, bad
// time) yields all the good events before the break and then a
// *DecodeError. An empty chunk yields nothing and nil. Group markers are
// skipped (see the package doc).
func (d *Decoder) Decode(data []byte, fn func(*Record) error) error {
	d.data = data
	defer func() { d.data = nil }()
	rest := data
	for index := 0; len(rest) > 0; index++ {
		start := len(data) - len(rest)
		d.rec = Record{Index: index, Start: start}
		next, marker, derr := d.event(rest, &d.rec)
		if derr != nil {
			derr.Index, derr.Start = index, start
			return derr
		}
		rest = next
		if marker {
			continue
		}
		if err := fn(&d.rec); err != nil {
			return err
		}
	}
	return nil
}

// event decodes one event from b into r and returns the bytes after it and
// whether it was a group marker.
func (d *Decoder) event(b []byte, r *Record) ([]byte, bool, *DecodeError) {
	if t := msgp.NextType(b); t != msgp.ArrayType {
		return nil, false, d.fail(b, "event is "+describe(b)+", want array")
	}
	n, rest, err := msgp.ReadArrayHeaderBytes(b)
	if err != nil {
		return nil, false, d.failMsgp(b, "event array header", err)
	}
	if n != 2 {
		return nil, false, d.fail(b, "event array has "+itoa(int64(n))+" elements, want 2")
	}
	var marker bool
	var derr *DecodeError
	if msgp.NextType(rest) == msgp.ArrayType {
		rest, marker, derr = d.header(rest, r)
	} else {
		rest, marker, derr = d.readTime(rest, r)
	}
	if derr != nil {
		return nil, false, derr
	}
	rest, derr = d.record(rest, r)
	return rest, marker, derr
}

// header decodes the Fluent Bit >= 2.1 event header [time, metadata].
func (d *Decoder) header(b []byte, r *Record) ([]byte, bool, *DecodeError) {
	n, rest, err := msgp.ReadArrayHeaderBytes(b)
	if err != nil {
		return nil, false, d.failMsgp(b, "event header array", err)
	}
	if n != 2 {
		return nil, false, d.fail(b, "event header array has "+itoa(int64(n))+" elements, want 2 (time, metadata)")
	}
	rest, marker, derr := d.readTime(rest, r)
	if derr != nil {
		return nil, false, derr
	}
	after, err := msgp.Skip(rest)
	if err != nil {
		return nil, false, d.failMsgp(rest, "metadata", err)
	}
	return after, marker, nil
}

// fail builds a DecodeError whose reason names the chunk position of b.
func (d *Decoder) fail(b []byte, reason string) *DecodeError {
	return &DecodeError{Reason: reason + " (at byte " + itoa(int64(len(d.data)-len(b))) + ")"}
}

// failMsgp builds a DecodeError from a msgp error met while reading what.
func (d *Decoder) failMsgp(b []byte, what string, err error) *DecodeError {
	var e *DecodeError
	if msgp.Cause(err) == msgp.ErrShortBytes {
		e = d.fail(b, "truncated in "+what)
	} else {
		e = d.fail(b, "bad "+what+": "+err.Error())
	}
	e.Err = err
	return e
}
