package output

import "runtime"

// UseOneProc runs the plugin's Go code on one processor (GOMAXPROCS=1)
// unless the environment's GOMAXPROCS says otherwise, and returns the
// count in force.
//
// Inside Fluent Bit the plugin hands work between goroutines many times a
// flush (the flush goroutine, net/http's read and write loops, the ledger's
// committer): with an idle processor the runtime wakes another thread for
// each hand-off, only for it to find nothing to do. With small flushes, a
// journal's few new lines at a time, those wake-ups were a quarter of
// Fluent Bit's CPU for a tag per file; one processor has none to wake. A
// flush waiting on Loki or on the disk still lets another (Workers > 1)
// run; only the Go work of two flushes no longer runs at once, which one
// core carries at well over 100,000 lines a second.
func UseOneProc(getenv func(string) string) int {
	if getenv("GOMAXPROCS") != "" {
		return runtime.GOMAXPROCS(0)
	}
	runtime.GOMAXPROCS(1)
	return 1
}
