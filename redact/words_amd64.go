package redact

import "golang.org/x/sys/cpu"

// vectorCPU: the CPU (and the OS, which must save the registers) has
// what the vector scan needs: AVX-512 F (mask registers), BW (byte masks
// and VPTESTMB) and VBMI (VPERMI2B).
var vectorCPU = cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW && cpu.X86.HasAVX512VBMI

// vecScan is in words_amd64.s.
//
//go:noescape
func vecScan(text *byte, n int, t *vecTables, out *uint64)
