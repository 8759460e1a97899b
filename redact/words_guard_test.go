//go:build linux && amd64

package redact

import (
	"syscall"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// The vector scan reads no byte past the n+2 it is given: texts that end
// right before a page that cannot be read, with its output right before
// another, are scanned without a fault.
func TestVecScanStaysInItsBytes(t *testing.T) {
	if !vectorCPU {
		t.Skip("the CPU has no AVX-512 VBMI")
	}
	k := newRedactor(t, nil).set.words
	page := syscall.Getpagesize()
	mem, err := syscall.Mmap(-1, 0, 4*page, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	require.NoError(t, err)
	defer syscall.Munmap(mem)
	require.NoError(t, syscall.Mprotect(mem[page:2*page], syscall.PROT_NONE))
	require.NoError(t, syscall.Mprotect(mem[3*page:], syscall.PROT_NONE))
	text, outMem := mem[:page], mem[2*page:3*page]
	for i := range text {
		text[i] = "the quick brown fox "[i%20]
	}
	for _, n := range []int{0, 1, 2, 3, 16, 62, 63, 64, 65, 66, 127, 128, 129, 200, 1023, 1024, 1025, vecChunk} {
		src := text[page-n-2:] // exactly n+2 bytes before the unreadable page
		words := (n + 63) / 64
		out := unsafe.Slice((*uint64)(unsafe.Pointer(&outMem[len(outMem)-8*max(words, 1)])), max(words, 1))
		if n > 0 {
			vecScan(&src[0], n, k.vec, &out[0])
		}
	}
}
