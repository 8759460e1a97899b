package journalfile

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// FingerprintBytes is how much of a file's start its fingerprint covers:
// the first line, or this many bytes of it when it is longer.
const FingerprintBytes = 256

// Identity names one journal file for as long as it exists, whatever its
// path: "dev:inode:fingerprint", where the fingerprint is a hash of the
// first line (at most FingerprintBytes of it). Device and inode tell a
// replaced or rotated file from the one the ledger knew, as Fluent Bit's
// tail does; the fingerprint tells a new file that got a freed inode back
// (common on ext4), as Vector's checksum fingerprint does. An append-only
// journal's first line never changes once written, so neither does its
// identity. While the first line is incomplete the fingerprint is empty
// (nothing of such a file can have been shipped yet). "" is unknown.
type Identity string

// IdentityOf returns the identity of the file at path.
func IdentityOf(path string) (Identity, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	return IdentityOfFile(f)
}

// IdentityOfFile returns the identity of an open file.
func IdentityOfFile(f *os.File) (Identity, error) {
	fi, err := f.Stat()
	if err != nil {
		return "", err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return "", errors.New("journalfile: no device and inode for " + f.Name())
	}
	buf := make([]byte, FingerprintBytes)
	n, err := f.ReadAt(buf, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return "", err
	}
	return identity(uint64(st.Dev), st.Ino, buf[:n]), nil
}

// identity builds an Identity from a device, an inode and the file's first
// bytes (at most FingerprintBytes).
func identity(dev, ino uint64, head []byte) Identity {
	fp := ""
	if line, complete := firstLine(head); complete {
		sum := sha256.Sum256(line)
		fp = hex.EncodeToString(sum[:12])
	}
	return Identity(strconv.FormatUint(dev, 10) + ":" + strconv.FormatUint(ino, 10) + ":" + fp)
}

// firstLine returns the first line of head with its newline, or the whole
// of head when it is FingerprintBytes long without one; complete is false
// while neither is there yet.
func firstLine(head []byte) (line []byte, complete bool) {
	for i, b := range head {
		if b == '\n' {
			return head[:i+1], true
		}
	}
	return head, len(head) >= FingerprintBytes
}

// Same tells whether a and b name the same file. An unknown identity ("",
// from a ledger written before identities were kept) matches any; an
// empty fingerprint (first line still incomplete) matches any fingerprint
// of the same device and inode.
func Same(a, b Identity) bool {
	if a == "" || b == "" || a == b {
		return true
	}
	ai, af := a.split()
	bi, bf := b.split()
	return ai == bi && (af == "" || bf == "")
}

// HasFingerprint tells whether id names its file by its first line too
// (not "" nor one whose first line was still being written): device and
// inode alone would take a file that got a freed inode back for the file
// that had it.
func (id Identity) HasFingerprint() bool {
	_, fp := id.split()
	return fp != ""
}

// split returns "dev:inode" and the fingerprint.
func (id Identity) split() (string, string) {
	s := string(id)
	i := strings.LastIndexByte(s, ':')
	if i < 0 {
		return s, ""
	}
	return s[:i], s[i+1:]
}

// String is the identity as stored.
func (id Identity) String() string {
	if id == "" {
		return "unknown"
	}
	return string(id)
}

// Born returns the birth time of the file at path (statx's btime, not
// following a symlink), and false where the file system does not keep
// one. A file renamed keeps it; a new file that got a freed inode back has
// its own.
func Born(path string) (time.Time, bool) {
	var st unix.Statx_t
	if err := unix.Statx(unix.AT_FDCWD, path, unix.AT_SYMLINK_NOFOLLOW, unix.STATX_BTIME, &st); err != nil || st.Mask&unix.STATX_BTIME == 0 {
		return time.Time{}, false
	}
	return time.Unix(st.Btime.Sec, int64(st.Btime.Nsec)), true
}
