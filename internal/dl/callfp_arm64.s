//go:build linux && !nocgo_syscalln

#include "textflag.h"

// callfp4 is call4 (zcall_arm64.s) that also loads F0 and F1 (D0, D1) from
// the frame's floating-point words (at 64 and 72).
TEXT callfp4<>(SB), NOSPLIT|NOFRAME, $0-0
	SUB	$32, RSP
	MOVD	R30, 24(RSP)	// the link register
	MOVD	R0, 16(RSP)	// the frame
	BL	_cgo_topofstack(SB)
	MOVD	R0, 8(RSP)	// the goroutine's stack top, before
	MOVD	16(RSP), R9
	MOVD	32(R9), R0	// a1
	MOVD	40(R9), R1	// a2
	MOVD	48(R9), R2	// a3
	MOVD	56(R9), R3	// a4
	FMOVD	64(R9), F0	// f1
	FMOVD	72(R9), F1	// f2
	MOVD	0(R9), R10	// fn
	BL	(R10)
	MOVD	R0, 0(RSP)	// the result
	BL	_cgo_topofstack(SB)
	MOVD	8(RSP), R3	// the stack top before
	SUB	R3, R0, R0	// how far the stack moved
	MOVD	16(RSP), R1
	ADD	R0, R1, R1	// the frame, where it is now
	MOVD	0(RSP), R2
	MOVD	R2, 8(R1)	// the result
	CBZ	R0, callfp4_done
	MOVD	R0, 16(R1)	// moved
	MOVD	R3, 24(R1)	// top
callfp4_done:
	MOVD	24(RSP), R30
	ADD	$32, RSP
	RET

GLOBL	·fpTrampoline(SB), NOPTR|RODATA, $8
DATA	·fpTrampoline+0(SB)/8, $callfp4<>(SB)
