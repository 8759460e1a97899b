package integrity

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var memberKeys = MustKeys(Key{Name: "type"}, Key{Name: "job_id", Shape: ShapeUUID}, Key{Name: "hash", Shape: ShapeHex64}, Key{Name: "n"})

const (
	kType = iota
	kJobID
	kHash
	kN
)

// read walks a whole line with Members.
func read(r *Members, line []byte, k *Keys) (ms []Member, verdict string) {
	if r.Start(line) {
		var m Member
		for r.Next(&m, k) {
			ms = append(ms, m)
		}
	}
	return ms, r.Verdict()
}

func TestMembers(t *testing.T) {
	line := []byte(`{"type":"x","job_id":"` + jobID + `","hash":"` + hash64 + `","j\u006fb_id":"` + jobID[1:] + `","other":{"type":1},"n":3.0,"n":"s\"","hash":null}`)
	var r Members
	ms, verdict := read(&r, line, memberKeys)
	require.Equal(t, "", verdict)
	want := []struct {
		id     uint8
		key    string
		raw    string
		kind   JSONKind
		shaped bool
	}{
		{kType, "type", `"x"`, JSONString, false},
		{kJobID, "job_id", `"` + jobID + `"`, JSONString, true},
		{kHash, "hash", `"` + hash64 + `"`, JSONString, true},
		{kJobID, `j\u006fb_id`, `"` + jobID[1:] + `"`, JSONString, false},
		{NoKey, "other", `{"type":1}`, JSONObject, false},
		{kN, "n", `3.0`, JSONNumber, false},
		{kN, "n", `"s\""`, JSONString, false},
		{kHash, "hash", `null`, JSONNull, false},
	}
	require.Len(t, ms, len(want))
	for i, w := range want {
		m := ms[i]
		assert.Equal(t, w.id, m.ID, "member %d", i)
		assert.Equal(t, w.key, string(m.Key(line)), "member %d", i)
		assert.Equal(t, strings.Contains(w.key, `\`), m.KeyEsc, "member %d", i)
		assert.Equal(t, w.raw, string(m.Raw(line)), "member %d", i)
		assert.Equal(t, w.kind, m.Kind, "member %d", i)
		assert.Equal(t, w.shaped, m.Shaped, "member %d", i)
	}
	n, ok := ms[5].Int(line)
	assert.True(t, ok)
	assert.Equal(t, int64(3), n)
	_, ok = ms[6].Int(line)
	assert.False(t, ok, "a string is no integer")
	assert.True(t, ms[6].Esc)
	assert.Equal(t, `s"`, string(Unescape(nil, ms[6].Str(line))))
}

func TestMembersVerdicts(t *testing.T) {
	var r Members
	for line, want := range map[string]string{
		"":                 "blank line",
		" \r\n":            "blank line",
		`[]`:               "not a JSON object",
		`{"type":1`:        "not JSON",
		`{"type":1}}`:      "not JSON",
		"{\"a\":\"\xff\"}": "invalid UTF-8",
		`{"a":` + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + `}`: reasonTooDeep,
		`{"a":1} `: "",
	} {
		ms, verdict := read(&r, []byte(line), memberKeys)
		assert.Equal(t, want, verdict, "%.40q", line)
		if want == "not JSON" {
			assert.Len(t, ms, 1, "members before the error are handed out: only the verdict tells")
		}
	}
}

func TestSlotInt(t *testing.T) {
	for _, tc := range []struct {
		raw         string
		want        int64
		ok, outside bool
	}{
		{"7", 7, true, false}, {"-7", -7, true, false}, {"3e0", 3, true, false}, {"0.5", 0, false, false},
		{"99999999999999999999999", 0, false, true}, {"1e400", 0, false, true}, {"-9223372036854775808", -9223372036854775808, true, false},
	} {
		s := Slot{Start: 0, End: len(tc.raw), Kind: JSONNumber}
		n, ok := s.Int([]byte(tc.raw))
		assert.Equal(t, tc.ok, ok, tc.raw)
		assert.Equal(t, tc.want, n, tc.raw)
		assert.Equal(t, tc.outside, s.IntOutOfRange([]byte(tc.raw)), tc.raw)
	}
	s := Slot{Start: 0, End: 3, Kind: JSONString}
	_, ok := s.Int([]byte(`"1"`))
	assert.False(t, ok)
	assert.False(t, s.IntOutOfRange([]byte(`"1"`)))
}

func TestKeys(t *testing.T) {
	for id, name := range []string{"type", "job_id", "hash", "n"} {
		assert.Equal(t, uint8(id), memberKeys.Lookup([]byte(name)), name)
		assert.Equal(t, name, memberKeys.Name(uint8(id)))
	}
	for _, k := range []string{"", "t", "typ", "types", "Type", "type ", "job_i", "job_idd", strings.Repeat("x", 100)} {
		assert.Equal(t, NoKey, memberKeys.Lookup([]byte(k)), k)
	}
	assert.Empty(t, memberKeys.Name(NoKey), "no name, no panic")
	assert.Empty(t, memberKeys.Name(4))
	escaped := map[string]uint8{
		`ty\u0070e`: kType, `job\u005fid`: kJobID, `\u006e`: kN, `\/`: NoKey,
		`typ\u00e9`: NoKey, `ty\npe`: NoKey, `\ud800type`: NoKey, strings.Repeat(`\u0061`, 40): NoKey,
	}
	for k, want := range escaped {
		assert.Equal(t, want, memberKeys.lookupEscaped([]byte(k)), k)
	}
	_, err := NewKeys(Key{Name: "a"}, Key{Name: "a"})
	assert.Error(t, err)
	_, err = NewKeys(Key{Name: ""})
	assert.Error(t, err)
	_, err = NewKeys(Key{Name: strings.Repeat("x", 65)})
	assert.Error(t, err)
	_, err = NewKeys(make([]Key, MaxKeys+1)...)
	assert.Error(t, err)
}

// TestKeysFull: with as many keys as allowed, colliding ones included,
// every key is found, escaped or not, and others are not.
func TestKeysFull(t *testing.T) {
	var keys []Key
	for i := range MaxKeys {
		keys = append(keys, Key{Name: fmt.Sprintf("k%03d", i)}) // same length, first byte
	}
	k := MustKeys(keys...)
	for i, key := range keys {
		assert.Equal(t, uint8(i), k.Lookup([]byte(key.Name)), key.Name)
		assert.Equal(t, uint8(i), k.lookupEscaped([]byte(`\u006b`+key.Name[1:])), key.Name)
	}
	for i := MaxKeys; i < 1000; i++ {
		assert.Equal(t, NoKey, k.Lookup(fmt.Appendf(nil, "k%03d", i)))
	}
	// Past 16 bytes the words are the first and last eight: the middle
	// tells these apart.
	twins := MustKeys(Key{Name: "abcdefgh-1-12345678"}, Key{Name: "abcdefgh-2-12345678"}, Key{Name: "ab"}, Key{Name: "abc"})
	for id, name := range []string{"abcdefgh-1-12345678", "abcdefgh-2-12345678", "ab", "abc"} {
		assert.Equal(t, uint8(id), twins.Lookup([]byte(name)), name)
	}
	for _, name := range []string{"abcdefgh-3-12345678", "abcdefgh--12345678", "a", "aab", "abd", "abcd"} {
		assert.Equal(t, NoKey, twins.Lookup([]byte(name)), name)
	}
	long := MustKeys(Key{Name: strings.Repeat("é", 32)})
	assert.Equal(t, uint8(0), long.lookupEscaped([]byte(strings.Repeat(`\u00e9`, 32))), "a name of the longest length, decoded")
	assert.Equal(t, NoKey, long.lookupEscaped([]byte(strings.Repeat(`\u00e9`, 33))))
}

func TestMembersAllocatesNothing(t *testing.T) {
	line := []byte(`{"type":"x","job_id":"` + jobID + `","t\u0079pe":"y","hash":"` + hash64 + `","n":-1.5e3,"o":{"a":[1,2,{"b":null}]}}`)
	var r Members
	read(&r, line, memberKeys) // warm up: the scanner's stack
	var m Member
	allocs := testing.AllocsPerRun(1000, func() {
		if r.Start(line) {
			for r.Next(&m, memberKeys) {
			}
		}
		if r.Verdict() != "" {
			t.Fatal("corrupt")
		}
	})
	assert.Zero(t, allocs)
}
