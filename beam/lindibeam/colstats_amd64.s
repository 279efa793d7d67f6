#include "textflag.h"

// func colStats16AVX2(p *int16, stride, rows int, acc *cols16)
//
// Adds rows (even, > 0) rows of 16 int16 columns, the first at p and each
// stride bytes after the last, to acc: the columns' minima and maxima
// (16 × int16), sums (16 × int32) and sums of squares (16 × int64), in
// column order. Two rows at a time: their words interleaved column by
// column (VPUNPCK[LH]WD) and multiplied by themselves and added in pairs
// (VPMADDWD) give each column's two squares summed in a 32-bit lane, which
// is at most 2 × 32768² = 2^31 and so read as unsigned when widened.
TEXT ·colStats16AVX2(SB), NOSPLIT, $0-32
	MOVQ p+0(FP), SI
	MOVQ stride+8(FP), DX
	MOVQ rows+16(FP), CX
	MOVQ acc+24(FP), DI
	VMOVDQU 0(DI), Y0   // min
	VMOVDQU 32(DI), Y1  // max
	VMOVDQU 64(DI), Y2  // sum, columns 0-7
	VMOVDQU 96(DI), Y3  // sum, columns 8-15
	VMOVDQU 128(DI), Y4 // squares, columns 0-3
	VMOVDQU 160(DI), Y5 // 4-7
	VMOVDQU 192(DI), Y6 // 8-11
	VMOVDQU 224(DI), Y7 // 12-15

loop:
	VMOVDQU (SI), Y8       // row r
	VMOVDQU (SI)(DX*1), Y9 // row r+1
	VPMINSW Y8, Y0, Y0
	VPMAXSW Y8, Y1, Y1
	VPMINSW Y9, Y0, Y0
	VPMAXSW Y9, Y1, Y1

	VPMOVSXWD    X8, Y10
	VEXTRACTI128 $1, Y8, X11
	VPMOVSXWD    X11, Y11
	VPADDD       Y10, Y2, Y2
	VPADDD       Y11, Y3, Y3
	VPMOVSXWD    X9, Y10
	VEXTRACTI128 $1, Y9, X11
	VPMOVSXWD    X11, Y11
	VPADDD       Y10, Y2, Y2
	VPADDD       Y11, Y3, Y3

	// In each 128-bit lane: columns 0-3 (8-11) of both rows, then 4-7 (12-15).
	VPUNPCKLWD Y9, Y8, Y10
	VPUNPCKHWD Y9, Y8, Y11
	VPMADDWD   Y10, Y10, Y10 // columns 0-3 | 8-11
	VPMADDWD   Y11, Y11, Y11 // columns 4-7 | 12-15

	VPMOVZXDQ    X10, Y12
	VPADDQ       Y12, Y4, Y4
	VEXTRACTI128 $1, Y10, X12
	VPMOVZXDQ    X12, Y12
	VPADDQ       Y12, Y6, Y6
	VPMOVZXDQ    X11, Y12
	VPADDQ       Y12, Y5, Y5
	VEXTRACTI128 $1, Y11, X12
	VPMOVZXDQ    X12, Y12
	VPADDQ       Y12, Y7, Y7

	LEAQ (SI)(DX*2), SI
	SUBQ $2, CX
	JNZ  loop

	VMOVDQU Y0, 0(DI)
	VMOVDQU Y1, 32(DI)
	VMOVDQU Y2, 64(DI)
	VMOVDQU Y3, 96(DI)
	VMOVDQU Y4, 128(DI)
	VMOVDQU Y5, 160(DI)
	VMOVDQU Y6, 192(DI)
	VMOVDQU Y7, 224(DI)
	VZEROUPPER
	RET
