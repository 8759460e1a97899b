package integrity

import (
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
)

const (
	jobID  = "01956a3b-7c4d-7e8f-9a1b-2c3d4e5f6789"
	hash64 = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
)

func TestFormats(t *testing.T) {
	uuids := map[string]bool{
		jobID: true, strings.ToUpper(jobID): true, "00000000-0000-0000-0000-000000000000": true,
		"01956a3b-7c4d-7e8f-9a1b-2c3d4e5f678": false, "01956a3b-7c4d-7e8f-9a1b-2c3d4e5f67890": false,
		"01956a3b7c4d-7e8f-9a1b-2c3d4e5f6789a": false, "01956a3b-7c4d-7e8f-9a1b-2c3d4e5f678g": false,
		"g1956a3b-7c4d-7e8f-9a1b-2c3d4e5f6789": false, "01956a3b-7c4d-7e8f-9a1b_2c3d4e5f6789": false,
		"01956a3b-7c4d-7e8f-9a1b-2c3d4e5f67\xc3\xa9": false, "01956a3b-7c4d-7e8f-9a1b-2c3d4e5f678/": false,
		"01956a3b-7c4d-7e8f-9a1b-2c3d4e5f678:": false, "01956a3b-7c4d-7e8f-9a1b-2c3d4e5f678@": false,
		"01956a3b-7c4d-7e8f-9a1b-2c3d4e5f678`": false, "{1956a3b-7c4d-7e8f-9a1b-2c3d4e5f6789}": false,
	}
	for s, want := range uuids {
		assert.Equal(t, want, IsUUID([]byte(s)), s)
	}
	hexes := map[string]bool{
		hash64: true, strings.Repeat("0", 64): true, strings.Repeat("f", 64): true,
		strings.ToUpper(hash64): false, hash64[:63]: false, hash64 + "0": false,
		hash64[:63] + "g": false, "/" + hash64[1:]: false, hash64[:32] + ":" + hash64[33:]: false,
		hash64[:40] + "`" + hash64[41:]: false, hash64[:62] + "\xc3\xa9": false,
	}
	for s, want := range hexes {
		assert.Equal(t, want, IsHex64([]byte(s)), s)
	}
}

// FuzzFormats checks the word-at-a-time format checks against plain ones.
func FuzzFormats(f *testing.F) {
	f.Add(jobID)
	f.Add(hash64)
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) == 36 {
			_, err := uuid.Parse(s)
			if IsUUID([]byte(s)) != (err == nil) {
				t.Fatalf("IsUUID(%q) = %v, uuid.Parse error %v", s, !(err == nil), err)
			}
		}
		want := len(s) == 64
		for _, c := range []byte(s) {
			want = want && (c >= '0' && c <= '9' || c >= 'a' && c <= 'f')
		}
		if IsHex64([]byte(s)) != want {
			t.Fatalf("IsHex64(%q) = %v", s, !want)
		}
	})
}
