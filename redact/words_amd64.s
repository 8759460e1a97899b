#include "textflag.h"

// The vector scan of words.mark (see words_vec.go for the tables): for
// 64 positions at a time, three loads give each position's three bytes
// in the same lane (x0 = text[p:], x1 = text[p+1:], x2 = text[p+2:]).
// VPERMI2B looks every lane up at once in a table of 128 bytes held in
// two registers (the low seven bits of each byte index it), which turns
// the bytes into their classes' parts: the address of a byte of a 32×32
// bit matrix (row<<2 | col>>3) and the bit in it. A second VPERMI2B
// looks the addresses up in the matrix itself, and VPTESTMB ANDs the
// bytes with the bits into a mask of the lanes that pass, one mask bit
// per position; the three matrices' masks are ANDed through the mask
// registers.
//
// Registers: the nine tables in Z0–Z17 (two halves each, in registers:
// with one half a memory operand, the scan is 3 to 5 % slower), the bytes
// and their lookups in Z20–Z27. VPERMI2B writes over its indexes: bytes
// looked up more than once are copied first, the last lookup takes them.
// On return VZEROUPPER clears the upper halves of Z0–Z15, and Z16–Z27,
// which it leaves, are zeroed.

// BLOCK computes in K3 the positions that pass among the 64 whose bytes
// are in Z20 (x0), Z21 (x1) and Z22 (x2), overwriting Z20–Z27: col1[x1]
// in Z23, bit1[x1] in Z24, row1[x1] in Z21, col2[x2] in Z25, bit2[x2] in
// Z22, row0[x0] in Z20; then K1 = q01[row0|col1]&bit1, K2 = K1 and
// q12[row1|col2]&bit2, K3 = K2 and q02[row0|col2]&bit2.
#define BLOCK \
	VMOVDQA64 Z21, Z23; \
	VPERMI2B  Z3, Z2, Z23; \
	VMOVDQA64 Z21, Z24; \
	VPERMI2B  Z5, Z4, Z24; \
	VPERMI2B  Z7, Z6, Z21; \
	VMOVDQA64 Z22, Z25; \
	VPERMI2B  Z9, Z8, Z25; \
	VPERMI2B  Z11, Z10, Z22; \
	VPERMI2B  Z1, Z0, Z20; \
	VPORQ     Z20, Z23, Z23; \
	VPERMI2B  Z13, Z12, Z23; \
	VPTESTMB  Z24, Z23, K1; \
	VPORQ     Z21, Z25, Z26; \
	VPERMI2B  Z15, Z14, Z26; \
	VPTESTMB  Z22, Z26, K1, K2; \
	VPORQ     Z20, Z25, Z27; \
	VPERMI2B  Z17, Z16, Z27; \
	VPTESTMB  Z22, Z27, K2, K3

// func vecScan(text *byte, n int, t *vecTables, out *uint64)
//
// vecScan sets in out (n/64 words, rounded up) the bit of each position
// i < n of text that passes; text holds at least n+2 bytes. It needs
// AVX-512 F, BW and VBMI.
TEXT ·vecScan(SB), NOSPLIT, $0-32
	MOVQ text+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ t+16(FP), AX
	MOVQ out+24(FP), DI

	VMOVDQU64 0(AX), Z0
	VMOVDQU64 64(AX), Z1
	VMOVDQU64 128(AX), Z2
	VMOVDQU64 192(AX), Z3
	VMOVDQU64 256(AX), Z4
	VMOVDQU64 320(AX), Z5
	VMOVDQU64 384(AX), Z6
	VMOVDQU64 448(AX), Z7
	VMOVDQU64 512(AX), Z8
	VMOVDQU64 576(AX), Z9
	VMOVDQU64 640(AX), Z10
	VMOVDQU64 704(AX), Z11
	VMOVDQU64 768(AX), Z12
	VMOVDQU64 832(AX), Z13
	VMOVDQU64 896(AX), Z14
	VMOVDQU64 960(AX), Z15
	VMOVDQU64 1024(AX), Z16
	VMOVDQU64 1088(AX), Z17

loop:
	CMPQ CX, $64
	JB   tail
	VMOVDQU64 0(SI), Z20
	VMOVDQU64 1(SI), Z21
	VMOVDQU64 2(SI), Z22
	BLOCK
	KMOVQ K3, AX
	MOVQ  AX, (DI)
	ADDQ  $64, SI
	ADDQ  $8, DI
	SUBQ  $64, CX
	JMP   loop

tail:
	// The last 1 to 63 positions: masked loads read none of the bytes
	// past the text's (a masked-off byte does not fault), and the mask
	// drops the lanes past the last position.
	TESTQ CX, CX
	JZ    done
	MOVQ  $1, AX
	SHLQ  CX, AX
	DECQ  AX
	KMOVQ AX, K4
	VMOVDQU8.Z 0(SI), K4, Z20
	VMOVDQU8.Z 1(SI), K4, Z21
	VMOVDQU8.Z 2(SI), K4, Z22
	BLOCK
	KANDQ K3, K4, K3
	KMOVQ K3, AX
	MOVQ  AX, (DI)

done:
	VPXORQ Z16, Z16, Z16
	VPXORQ Z17, Z17, Z17
	VPXORQ Z20, Z20, Z20
	VPXORQ Z21, Z21, Z21
	VPXORQ Z22, Z22, Z22
	VPXORQ Z23, Z23, Z23
	VPXORQ Z24, Z24, Z24
	VPXORQ Z25, Z25, Z25
	VPXORQ Z26, Z26, Z26
	VPXORQ Z27, Z27, Z27
	VZEROUPPER
	RET
