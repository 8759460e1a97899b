package journalfile

import "io/fs"

// Kind names a file's type for a person: "regular file", "symlink",
// "directory", "named pipe", "socket", "device" or "special file"
// (fs.FileMode's String gives "L---------" and the like).
func Kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "symlink"
	case m.IsDir():
		return "directory"
	case m.IsRegular():
		return "regular file"
	case m&fs.ModeNamedPipe != 0:
		return "named pipe"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeDevice != 0:
		return "device"
	}
	return "special file"
}
