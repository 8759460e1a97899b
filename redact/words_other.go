//go:build !amd64

package redact

// vectorCPU: the vector scan is for amd64 only.
var vectorCPU = false

func vecScan(text *byte, n int, t *vecTables, out *uint64) {
	panic("redact: no vector scan on this architecture")
}
