//go:build linux

package promproc

import "syscall"

// sysProcAttr asks the kernel to SIGKILL Prometheus if the parent dies, so a test
// binary killed by `go test -timeout` does not leave Prometheus running. (Linux
// ties this to the spawning OS thread; the Go runtime only retires a thread
// when a goroutine exits while locked to it, which no caller here does.)
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
