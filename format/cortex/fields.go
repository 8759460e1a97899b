package cortex

import "github.com/journalship/journalship/integrity"

// fieldSet gathers the known fields of one line's top-level object, by
// field, without building anything: the first occurrence of each field
// counts, later ones are duplicates.
type fieldSet struct {
	first [fieldCount]integrity.Slot
	seen  mask
	// order lists every occurrence of a known field (duplicates included)
	// in the order of the line, for the judge to visit.
	order []field
	// plain holds the first "type" and "timestamp" whose keys are written
	// without escapes; see typeAndTimestamp.
	plain     [2]integrity.Slot
	plainSeen mask
}

func (s *fieldSet) reset() {
	s.seen, s.plainSeen = 0, 0
	s.order = s.order[:0]
}

// add records a member whose key names the known field f.
func (s *fieldSet) add(f field, m *integrity.Member) {
	s.order = append(s.order, f)
	if f <= fTimestamp && !m.KeyEsc && !s.plainSeen.has(f) {
		s.plainSeen |= 1 << f
		s.plain[f] = m.Slot
	}
	if s.seen.has(f) {
		return
	}
	s.seen |= 1 << f
	s.first[f] = m.Slot
}

// get returns the first occurrence of f, or nil.
func (s *fieldSet) get(f field) *integrity.Slot {
	if !s.seen.has(f) {
		return nil
	}
	return &s.first[f]
}

// typeAndTimestamp finds the "type" and "timestamp" members the way the
// validator always has (fastjson's Object.Get, called for "type" then
// "timestamp"): a key written without escapes is preferred, and keys with
// escapes are only looked at when no plain key matches; once that happened
// for "type", the "timestamp" lookup looks at all keys alike. The choice
// only matters for lines that repeat these keys, some escaped.
func (s *fieldSet) typeAndTimestamp() (t, ts *integrity.Slot) {
	decoded := false
	if s.plainSeen.has(fType) {
		t = &s.plain[fType]
	} else {
		decoded = true
		t = s.get(fType)
	}
	if !decoded && s.plainSeen.has(fTimestamp) {
		ts = &s.plain[fTimestamp]
	} else {
		ts = s.get(fTimestamp)
	}
	return t, ts
}
