package redact

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

const (
	// KeySize is the size of the key LoadOrCreateKey creates and the
	// least it accepts.
	KeySize = 32
	// maxKeySize is the most a key file may hold.
	maxKeySize = 4096
)

// KeyError is a key file that cannot be used or created.
type KeyError struct {
	Path   string
	Reason string
	Err    error // the underlying error, if any
}

func (e *KeyError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("redact: key file %s: %s: %v", e.Path, e.Reason, e.Err)
	}
	return fmt.Sprintf("redact: key file %s: %s", e.Path, e.Reason)
}

func (e *KeyError) Unwrap() error { return e.Err }

// LoadOrCreateKey returns the key of the file at path, creating the file
// with KeySize random bytes and mode 0600 when it does not exist. The
// file is created whole or not at all: written under a temporary name in
// the same directory, synced, then linked into place, so that of two
// processes creating it at once one key wins and both use it. A file
// shorter than KeySize, longer than 4 KiB, not a regular file, or that
// its group or others may read or write is refused with a *KeyError.
func LoadOrCreateKey(path string) ([]byte, error) {
	key, err := readKey(path)
	if !errors.Is(err, fs.ErrNotExist) {
		return key, err
	}
	return createKey(path)
}

// readKey reads and checks a key file; a missing file is an error
// wrapping fs.ErrNotExist.
func readKey(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &KeyError{Path: path, Reason: "cannot open", Err: err}
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, &KeyError{Path: path, Reason: "cannot stat", Err: err}
	}
	if !fi.Mode().IsRegular() {
		return nil, &KeyError{Path: path, Reason: "not a regular file"}
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return nil, &KeyError{Path: path, Reason: fmt.Sprintf("mode %04o lets group or others at it (chmod 600)", perm)}
	}
	key, err := io.ReadAll(io.LimitReader(f, maxKeySize+1))
	switch {
	case err != nil:
		return nil, &KeyError{Path: path, Reason: "cannot read", Err: err}
	case len(key) < KeySize:
		return nil, &KeyError{Path: path, Reason: fmt.Sprintf("%d bytes, fewer than %d", len(key), KeySize)}
	case len(key) > maxKeySize:
		return nil, &KeyError{Path: path, Reason: fmt.Sprintf("more than %d bytes", maxKeySize)}
	}
	return key, nil
}

// createKey writes a new key file, or reads the one another process
// created first.
func createKey(path string) ([]byte, error) {
	key := make([]byte, KeySize)
	if _, err := rand.Read(key); err != nil {
		return nil, &KeyError{Path: path, Reason: "cannot draw random bytes", Err: err}
	}
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*") // mode 0600
	if err != nil {
		return nil, &KeyError{Path: path, Reason: "cannot create", Err: err}
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.Write(key)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, &KeyError{Path: path, Reason: "cannot write", Err: err}
	}
	if err := os.Link(tmp.Name(), path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return readKey(path) // another process was first
		}
		if err := os.Rename(tmp.Name(), path); err != nil { // a file system without hard links
			return nil, &KeyError{Path: path, Reason: "cannot create", Err: err}
		}
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync() // make the new name durable
		_ = d.Close()
	}
	return key, nil
}
