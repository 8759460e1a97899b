//go:build !linux

package childproc

import "syscall"

// sysProcAttr has nothing to add outside Linux.
func sysProcAttr() *syscall.SysProcAttr { return nil }
