//go:build linux && !nocgo_syscalln

#include "textflag.h"

// callfp4 is call4 (zcall_amd64.s) that also loads X0 and X1 from the
// frame's floating-point words (at 64 and 72) and sets AL=2, the number of
// vector registers used, for variadic callees.
TEXT callfp4<>(SB), NOSPLIT, $32-0
	MOVQ	DI, 24(SP)	// the frame
	CALL	_cgo_topofstack(SB)
	MOVQ	AX, 16(SP)	// the goroutine's stack top, before
	MOVQ	24(SP), R11
	MOVQ	32(R11), DI	// a1
	MOVQ	40(R11), SI	// a2
	MOVQ	48(R11), DX	// a3
	MOVQ	56(R11), CX	// a4
	MOVQ	64(R11), X0	// f1
	MOVQ	72(R11), X1	// f2
	MOVQ	0(R11), R10	// fn
	MOVL	$2, AX	// AL=2: two vector registers
	CALL	R10
	MOVQ	AX, 8(SP)	// the result
	CALL	_cgo_topofstack(SB)
	MOVQ	16(SP), DX	// the stack top before
	SUBQ	DX, AX	// how far the stack moved
	MOVQ	24(SP), CX
	ADDQ	AX, CX	// the frame, where it is now
	MOVQ	8(SP), SI
	MOVQ	SI, 8(CX)	// the result
	TESTQ	AX, AX
	JEQ	callfp4_done
	MOVQ	AX, 16(CX)	// moved
	MOVQ	DX, 24(CX)	// top
callfp4_done:
	RET

GLOBL	·fpTrampoline(SB), NOPTR|RODATA, $8
DATA	·fpTrampoline+0(SB)/8, $callfp4<>(SB)
