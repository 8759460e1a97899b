//go:build !linux

package journalfile

import "os"

// incarnation would name one file for as long as it exists; without
// statx's birth time nothing tells a new file on a freed inode from the
// old one, so nothing is remembered.
type incarnation struct{}

func incarnationOf(*os.File) (incarnation, int64, bool) { return incarnation{}, 0, false }
