//go:build linux

package childproc

import "syscall"

// sysProcAttr asks the kernel to SIGKILL the server if the parent dies, so a
// test binary killed by `go test -timeout` does not leave it running. (Linux
// ties this to the spawning OS thread; the Go runtime only retires a thread
// when a goroutine exits while locked to it, which no caller here does.)
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
