//go:build !purego

#include "textflag.h"

// AVX2 code for the functions of lanes.go (see doc.go for the hazard).
// Each reads and writes exactly the 32 uint64 (256 bytes) of each
// register argument, 8 bytes per lane, four lanes to a Y register, and
// ends with VZEROUPPER. Register use: DI d, SI x, DX y, R8 z or p, CX
// the byte offset, Y12..Y15 constants. Only VEX instructions touch the
// X and Y registers (VMOVQ, not MOVQ, from a general register): a legacy
// SSE instruction after a 256-bit one, with the upper halves dirty, costs
// Intel cores a state transition each time (matmul ran 7x slower on the
// H200 machine's Xeon for two such MOVQs; TestOnlyVEX).

// NEXTWARP ends a function run over R9 warps (n >= 1), R10 bytes apart
// (stride): the pointers move on to the next warp's registers and the
// loop starts again at the label warp.
#define NEXTWARP \
	ADDQ R10, DI \
	ADDQ R10, SI \
	ADDQ R10, DX \
	ADDQ R10, R8 \
	DECQ R9 \
	JNZ warp \
	VZEROUPPER \
	RET

// A binary operation on 64-bit lanes, then & Y15 (mask) when MASKED:
// LOOP2 runs OP over the 256 bytes, two Y registers per step.
#define LOOP2(OP) \
warp: \
	XORQ CX, CX \
loop: \
	VMOVDQU (SI)(CX*1), Y0 \
	VMOVDQU 32(SI)(CX*1), Y1 \
	OP((DX)(CX*1), Y0) \
	OP(32(DX)(CX*1), Y1) \
	VMOVDQU Y0, (DI)(CX*1) \
	VMOVDQU Y1, 32(DI)(CX*1) \
	ADDQ $64, CX \
	CMPQ CX, $256 \
	JNE loop \
	NEXTWARP

#define ADDM(m, r) VPADDQ m, r, r; VPAND Y15, r, r
#define SUBM(m, r) VPSUBQ m, r, r; VPAND Y15, r, r
#define ANDM(m, r) VPAND m, r, r
#define ORM(m, r) VPOR m, r, r
#define XORM(m, r) VPXOR m, r, r
#define MULLOM(m, r) VPMULUDQ m, r, r; VPAND Y15, r, r
#define MULWSM(m, r) VPMULDQ m, r, r

// func addAVX2(d, x, y *Reg, mask uint64, n int, stride uintptr)
TEXT ·addAVX2(SB), NOSPLIT, $0-48
	MOVQ n+32(FP), R9
	MOVQ stride+40(FP), R10
	MOVQ d+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DX
	VPBROADCASTQ mask+24(FP), Y15
	LOOP2(ADDM)

// func subAVX2(d, x, y *Reg, mask uint64, n int, stride uintptr)
TEXT ·subAVX2(SB), NOSPLIT, $0-48
	MOVQ n+32(FP), R9
	MOVQ stride+40(FP), R10
	MOVQ d+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DX
	VPBROADCASTQ mask+24(FP), Y15
	LOOP2(SUBM)

// func andAVX2(d, x, y *Reg, n int, stride uintptr)
TEXT ·andAVX2(SB), NOSPLIT, $0-40
	MOVQ n+24(FP), R9
	MOVQ stride+32(FP), R10
	MOVQ d+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DX
	LOOP2(ANDM)

// func orAVX2(d, x, y *Reg, n int, stride uintptr)
TEXT ·orAVX2(SB), NOSPLIT, $0-40
	MOVQ n+24(FP), R9
	MOVQ stride+32(FP), R10
	MOVQ d+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DX
	LOOP2(ORM)

// func xorAVX2(d, x, y *Reg, n int, stride uintptr)
TEXT ·xorAVX2(SB), NOSPLIT, $0-40
	MOVQ n+24(FP), R9
	MOVQ stride+32(FP), R10
	MOVQ d+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DX
	LOOP2(XORM)

// func mulLo32AVX2(d, x, y *Reg, mask uint64, n int, stride uintptr)
TEXT ·mulLo32AVX2(SB), NOSPLIT, $0-48
	MOVQ n+32(FP), R9
	MOVQ stride+40(FP), R10
	MOVQ d+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DX
	VPBROADCASTQ mask+24(FP), Y15
	LOOP2(MULLOM)

// func mulWideS32AVX2(d, x, y *Reg, n int, stride uintptr)
TEXT ·mulWideS32AVX2(SB), NOSPLIT, $0-40
	MOVQ n+24(FP), R9
	MOVQ stride+32(FP), R10
	MOVQ d+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DX
	LOOP2(MULWSM)

// func addImmAVX2(d, x *Reg, imm, mask uint64)
TEXT ·addImmAVX2(SB), NOSPLIT, $0-32
	MOVQ d+0(FP), DI
	MOVQ x+8(FP), SI
	VPBROADCASTQ imm+16(FP), Y14
	VPBROADCASTQ mask+24(FP), Y15
	XORQ CX, CX
addimm:
	VPADDQ (SI)(CX*1), Y14, Y0
	VPADDQ 32(SI)(CX*1), Y14, Y1
	VPAND Y15, Y0, Y0
	VPAND Y15, Y1, Y1
	VMOVDQU Y0, (DI)(CX*1)
	VMOVDQU Y1, 32(DI)(CX*1)
	ADDQ $64, CX
	CMPQ CX, $256
	JNE addimm
	VZEROUPPER
	RET

// LOOP3 is LOOP2 with a third operand, z (R8): OP(y, z, r).
#define LOOP3(OP) \
warp: \
	XORQ CX, CX \
loop: \
	VMOVDQU (SI)(CX*1), Y0 \
	VMOVDQU 32(SI)(CX*1), Y1 \
	OP((DX)(CX*1), (R8)(CX*1), Y0) \
	OP(32(DX)(CX*1), 32(R8)(CX*1), Y1) \
	VMOVDQU Y0, (DI)(CX*1) \
	VMOVDQU Y1, 32(DI)(CX*1) \
	ADDQ $64, CX \
	CMPQ CX, $256 \
	JNE loop \
	NEXTWARP

#define MADLOM(my, mz, r) VPMULUDQ my, r, r; VPADDQ mz, r, r; VPAND Y15, r, r
#define MADWSM(my, mz, r) VPMULDQ my, r, r; VPADDQ mz, r, r

// func madLo32AVX2(d, x, y, z *Reg, mask uint64, n int, stride uintptr)
TEXT ·madLo32AVX2(SB), NOSPLIT, $0-56
	MOVQ n+40(FP), R9
	MOVQ stride+48(FP), R10
	MOVQ d+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DX
	MOVQ z+24(FP), R8
	VPBROADCASTQ mask+32(FP), Y15
	LOOP3(MADLOM)

// func madWideS32AVX2(d, x, y, z *Reg, n int, stride uintptr)
TEXT ·madWideS32AVX2(SB), NOSPLIT, $0-48
	MOVQ n+32(FP), R9
	MOVQ stride+40(FP), R10
	MOVQ d+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DX
	MOVQ z+24(FP), R8
	LOOP3(MADWSM)

// The comparisons: Y0 = x, Y1 = y, made comparable as signed 64-bit
// values by PREP; then d = ((y > x) >> 63) ^ flip, 1 or 0 per lane.
#define CMPLOOP(PREP, label) \
warp: \
	XORQ CX, CX \
label: \
	VMOVDQU (SI)(CX*1), Y0 \
	VMOVDQU (DX)(CX*1), Y1 \
	PREP \
	VPCMPGTQ Y0, Y1, Y2 \
	VPSRLQ $63, Y2, Y2 \
	VPXOR Y14, Y2, Y2 \
	VMOVDQU Y2, (DI)(CX*1) \
	ADDQ $32, CX \
	CMPQ CX, $256 \
	JNE label \
	NEXTWARP

#define PREPS32 VPSLLQ $32, Y0, Y0; VPSLLQ $32, Y1, Y1
#define PREPS64
#define PREPU64 VPXOR Y13, Y0, Y0; VPXOR Y13, Y1, Y1

// func ltS32AVX2(d, x, y *Reg, flip uint64, n int, stride uintptr)
TEXT ·ltS32AVX2(SB), NOSPLIT, $0-48
	MOVQ n+32(FP), R9
	MOVQ stride+40(FP), R10
	MOVQ d+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DX
	VPBROADCASTQ flip+24(FP), Y14
	CMPLOOP(PREPS32, lts32)

// func ltS64AVX2(d, x, y *Reg, flip uint64, n int, stride uintptr)
TEXT ·ltS64AVX2(SB), NOSPLIT, $0-48
	MOVQ n+32(FP), R9
	MOVQ stride+40(FP), R10
	MOVQ d+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DX
	VPBROADCASTQ flip+24(FP), Y14
	CMPLOOP(PREPS64, lts64)

// func ltU64AVX2(d, x, y *Reg, flip uint64, n int, stride uintptr)
TEXT ·ltU64AVX2(SB), NOSPLIT, $0-48
	MOVQ n+32(FP), R9
	MOVQ stride+40(FP), R10
	MOVQ $0x8000000000000000, AX
	VMOVQ AX, X13
	VPBROADCASTQ X13, Y13
	MOVQ d+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DX
	VPBROADCASTQ flip+24(FP), Y14
	CMPLOOP(PREPU64, ltu64)

// func eqAVX2(d, x, y *Reg, mask, flip uint64)
TEXT ·eqAVX2(SB), NOSPLIT, $0-40
	MOVQ d+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DX
	VPBROADCASTQ mask+24(FP), Y15
	VPBROADCASTQ flip+32(FP), Y14
	VPXOR Y12, Y12, Y12
	XORQ CX, CX
eq:
	VMOVDQU (SI)(CX*1), Y0
	VPXOR (DX)(CX*1), Y0, Y0
	VPAND Y15, Y0, Y0
	VPCMPEQQ Y12, Y0, Y0
	VPSRLQ $63, Y0, Y0
	VPXOR Y14, Y0, Y0
	VMOVDQU Y0, (DI)(CX*1)
	ADDQ $32, CX
	CMPQ CX, $256
	JNE eq
	VZEROUPPER
	RET

// func selpAVX2(d, x, y, p *Reg)
TEXT ·selpAVX2(SB), NOSPLIT, $0-32
	MOVQ d+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DX
	MOVQ p+24(FP), R8
	VPXOR Y12, Y12, Y12
	XORQ CX, CX
selp:
	VMOVDQU (R8)(CX*1), Y2
	VPCMPEQQ Y12, Y2, Y2 // all ones where p == 0: take y there
	VMOVDQU (SI)(CX*1), Y0
	VMOVDQU (DX)(CX*1), Y1
	VPBLENDVB Y2, Y1, Y0, Y0
	VMOVDQU Y0, (DI)(CX*1)
	ADDQ $32, CX
	CMPQ CX, $256
	JNE selp
	VZEROUPPER
	RET

// The float32 operations, four lanes a Y register as they lie: each lane's
// float32 is its low 32 bits, so OP on the eight 32-bit elements computes
// the four lanes' results in the even elements (x86's packed float
// arithmetic is element by element: an odd element, a lane's high bits,
// changes nothing in its even neighbour), NaNs are made 0x7fffffff and
// the odd elements cleared (Y13), which is the zero extension. No
// shuffle: the loads and stores are the lanes' own.
#define F32SETUP \
	MOVL $0x7fffffff, AX \
	VMOVQ AX, X14 \
	VPBROADCASTD X14, Y14 \
	MOVL $0xffffffff, AX \
	VMOVQ AX, X13 \
	VPBROADCASTQ X13, Y13

// F32FIX makes r's NaN elements 0x7fffffff and clears its odd elements
// (t is a scratch register).
#define F32FIX(r, t) \
	VCMPPS $3, r, r, t \
	VBLENDVPS t, Y14, r, r \
	VPAND Y13, r, r

// F32NEXT stores Y0 and Y4 (eight lanes) and loops over the warp's
// lanes, then over the warps.
#define F32NEXT(label) \
	VMOVDQU Y0, (DI)(CX*1) \
	VMOVDQU Y4, 32(DI)(CX*1) \
	ADDQ $64, CX \
	CMPQ CX, $256 \
	JNE label \
	NEXTWARP

// func addF32AVX2(d, x, y *Reg, n int, stride uintptr)
TEXT ·addF32AVX2(SB), NOSPLIT, $0-40
	MOVQ n+24(FP), R9
	MOVQ stride+32(FP), R10
	MOVQ d+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DX
	F32SETUP
warp:
	XORQ CX, CX
addf32:
	VMOVDQU (SI)(CX*1), Y0
	VMOVDQU 32(SI)(CX*1), Y4
	VADDPS (DX)(CX*1), Y0, Y0
	VADDPS 32(DX)(CX*1), Y4, Y4
	F32FIX(Y0, Y3)
	F32FIX(Y4, Y5)
	F32NEXT(addf32)

// func mulF32AVX2(d, x, y *Reg, n int, stride uintptr)
TEXT ·mulF32AVX2(SB), NOSPLIT, $0-40
	MOVQ n+24(FP), R9
	MOVQ stride+32(FP), R10
	MOVQ d+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DX
	F32SETUP
warp:
	XORQ CX, CX
mulf32:
	VMOVDQU (SI)(CX*1), Y0
	VMOVDQU 32(SI)(CX*1), Y4
	VMULPS (DX)(CX*1), Y0, Y0
	VMULPS 32(DX)(CX*1), Y4, Y4
	F32FIX(Y0, Y3)
	F32FIX(Y4, Y5)
	F32NEXT(mulf32)

// func fmaF32AVX2(d, x, y, z *Reg, n int, stride uintptr)
TEXT ·fmaF32AVX2(SB), NOSPLIT, $0-48
	MOVQ n+32(FP), R9
	MOVQ stride+40(FP), R10
	MOVQ d+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DX
	MOVQ z+24(FP), R8
	F32SETUP
warp:
	XORQ CX, CX
fmaf32:
	VMOVDQU (R8)(CX*1), Y0
	VMOVDQU 32(R8)(CX*1), Y4
	VMOVDQU (SI)(CX*1), Y1
	VMOVDQU 32(SI)(CX*1), Y5
	VFMADD231PS (DX)(CX*1), Y1, Y0   // Y0 = Y1*y + Y0
	VFMADD231PS 32(DX)(CX*1), Y5, Y4
	F32FIX(Y0, Y3)
	F32FIX(Y4, Y6)
	F32NEXT(fmaf32)

// func nonzeroAVX2(p *Reg) uint32
TEXT ·nonzeroAVX2(SB), NOSPLIT, $0-12
	MOVQ p+0(FP), SI
	VPXOR Y12, Y12, Y12
	XORQ BX, BX
	MOVQ $224, CX
nonzero:
	VMOVDQU (SI)(CX*1), Y0
	VPCMPEQQ Y12, Y0, Y0 // lanes that are 0
	VMOVMSKPD Y0, AX
	SHLQ $4, BX
	ORQ AX, BX
	SUBQ $32, CX
	JGE nonzero
	NOTL BX
	MOVL BX, ret+8(FP)
	VZEROUPPER
	RET

// func checkAVX2(a *Reg, start, lim, amask, imm, step uint64) (inSpan, consecutive bool)
TEXT ·checkAVX2(SB), NOSPLIT, $0-50
	MOVQ a+0(FP), SI
	VPBROADCASTQ start+8(FP), Y8
	VPBROADCASTQ lim+16(FP), Y9
	VPBROADCASTQ amask+24(FP), Y10
	VPBROADCASTQ imm+32(FP), Y11
	MOVQ step+40(FP), AX
	// Y7: the sign bit, for unsigned comparisons; Y9: lim with it flipped.
	MOVQ $0x8000000000000000, BX
	VMOVQ BX, X7
	VPBROADCASTQ X7, Y7
	VPXOR Y7, Y9, Y9
	// Y12: the consecutive addresses of lanes 0..3; Y13: 4*step.
	MOVQ (SI), BX
	VMOVQ BX, X0
	LEAQ (BX)(AX*1), R9
	VPINSRQ $1, R9, X0, X0
	LEAQ (BX)(AX*2), R10
	VMOVQ R10, X1
	LEAQ (R10)(AX*1), R11
	VPINSRQ $1, R11, X1, X1
	VINSERTI128 $1, X1, Y0, Y12
	SHLQ $2, AX
	VMOVQ AX, X13
	VPBROADCASTQ X13, Y13
	VPXOR Y4, Y4, Y4 // addresses off the consecutive ones
	VPXOR Y5, Y5, Y5 // lanes out of the span
	VPXOR Y6, Y6, Y6 // the addresses' bits, or-ed
	XORQ CX, CX
check:
	VMOVDQU (SI)(CX*1), Y0
	VPSUBQ Y8, Y0, Y1
	VPXOR Y7, Y1, Y1
	VPCMPGTQ Y9, Y1, Y2 // a-start > lim, unsigned
	VPOR Y2, Y5, Y5
	VPADDQ Y11, Y0, Y3
	VPOR Y3, Y6, Y6
	VPXOR Y12, Y0, Y3
	VPOR Y3, Y4, Y4
	VPADDQ Y13, Y12, Y12
	ADDQ $32, CX
	CMPQ CX, $256
	JNE check
	VPAND Y10, Y6, Y6
	VPOR Y6, Y5, Y5
	VPTEST Y5, Y5
	SETEQ inSpan+48(FP)
	VPTEST Y4, Y4
	SETEQ consecutive+49(FP)
	VZEROUPPER
	RET

// func load32AVX2(d *Reg, src *[128]byte, n int, stride uintptr)
TEXT ·load32AVX2(SB), NOSPLIT, $0-32
	MOVQ d+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), R12
	MOVQ stride+24(FP), R13
load32warp:
	VPMOVZXDQ (SI), Y0
	VPMOVZXDQ 16(SI), Y1
	VPMOVZXDQ 32(SI), Y2
	VPMOVZXDQ 48(SI), Y3
	VPMOVZXDQ 64(SI), Y4
	VPMOVZXDQ 80(SI), Y5
	VPMOVZXDQ 96(SI), Y6
	VPMOVZXDQ 112(SI), Y7
	VMOVDQU Y0, (DI)
	VMOVDQU Y1, 32(DI)
	VMOVDQU Y2, 64(DI)
	VMOVDQU Y3, 96(DI)
	VMOVDQU Y4, 128(DI)
	VMOVDQU Y5, 160(DI)
	VMOVDQU Y6, 192(DI)
	VMOVDQU Y7, 224(DI)
	ADDQ R13, DI
	ADDQ $128, SI
	DECQ R12
	JNZ load32warp
	VZEROUPPER
	RET

// lows<> picks the low 32 bits of four 64-bit lanes (VPERMD's indices,
// twice: both halves of a Y register get lanes 0..3's).
DATA lows<>+0(SB)/4, $0
DATA lows<>+4(SB)/4, $2
DATA lows<>+8(SB)/4, $4
DATA lows<>+12(SB)/4, $6
DATA lows<>+16(SB)/4, $0
DATA lows<>+20(SB)/4, $2
DATA lows<>+24(SB)/4, $4
DATA lows<>+28(SB)/4, $6
GLOBL lows<>(SB), RODATA|NOPTR, $32

// func store32AVX2(dst *[128]byte, v *Reg, n int, stride uintptr)
TEXT ·store32AVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ v+8(FP), SI
	MOVQ n+16(FP), R12
	MOVQ stride+24(FP), R13
	VMOVDQU lows<>(SB), Y15
store32warp:
	XORQ CX, CX
	XORQ DX, DX
store32:
	VPERMD (SI)(CX*1), Y15, Y0
	VMOVDQU X0, (DI)(DX*1)
	ADDQ $16, DX
	ADDQ $32, CX
	CMPQ CX, $256
	JNE store32
	ADDQ R13, SI
	ADDQ $128, DI
	DECQ R12
	JNZ store32warp
	VZEROUPPER
	RET

// One step of consecutiveAVX2: lanes off/8..off/8+3 against Y12, the
// addresses they would have, which then move on by 4*step (Y13).
#define CONSEC(off) \
	VPXOR off(SI), Y12, Y3 \
	VPOR Y3, Y4, Y4 \
	VPADDQ Y13, Y12, Y12

// func consecutiveAVX2(a *Reg, step uint64, n int, stride uintptr) bool
TEXT ·consecutiveAVX2(SB), NOSPLIT, $0-33
	MOVQ n+16(FP), R12
	MOVQ stride+24(FP), R13
	MOVQ a+0(FP), SI
	MOVQ step+8(FP), AX
	MOVQ (SI), BX
	VMOVQ BX, X0
	LEAQ (BX)(AX*1), R9
	VPINSRQ $1, R9, X0, X0
	LEAQ (BX)(AX*2), R10
	VMOVQ R10, X1
	LEAQ (R10)(AX*1), R11
	VPINSRQ $1, R11, X1, X1
	VINSERTI128 $1, X1, Y0, Y12
	SHLQ $2, AX
	VMOVQ AX, X13
	VPBROADCASTQ X13, Y13
	VPXOR Y4, Y4, Y4
consecwarp: // Y12 goes on from one warp's lane 31 to the next one's lane 0
	CONSEC(0)
	CONSEC(32)
	CONSEC(64)
	CONSEC(96)
	CONSEC(128)
	CONSEC(160)
	CONSEC(192)
	CONSEC(224)
	ADDQ R13, SI
	DECQ R12
	JNZ consecwarp
	VPTEST Y4, Y4
	SETEQ ret+32(FP)
	VZEROUPPER
	RET

// The packed float32 runs of packed.go: n steps of eight elements (32
// bytes) of d, x, y (and z), no other memory. Y14 is the canonical NaN,
// NaN results are made it (as F32FIX does, with no odd elements to
// clear here).
#define PACKSETUP \
	MOVL $0x7fffffff, AX \
	VMOVQ AX, X14 \
	VPBROADCASTD X14, Y14

#define PACKFIX(r, t) \
	VCMPPS $3, r, r, t \
	VBLENDVPS t, Y14, r, r

// PACK2 runs VOP (x at (SI) in Y0, y at (DX)) over R9 steps into (DI).
#define PACK2(VOP) \
	PACKSETUP \
loop: \
	VMOVDQU (SI), Y0 \
	VOP (DX), Y0, Y0 \
	PACKFIX(Y0, Y3) \
	VMOVDQU Y0, (DI) \
	ADDQ $32, SI \
	ADDQ $32, DX \
	ADDQ $32, DI \
	DECQ R9 \
	JNZ loop \
	VZEROUPPER \
	RET

// func addF32sAVX2(d, x, y *byte, n int)
TEXT ·addF32sAVX2(SB), NOSPLIT, $0-32
	MOVQ d+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DX
	MOVQ n+24(FP), R9
	PACK2(VADDPS)

// func subF32sAVX2(d, x, y *byte, n int)
TEXT ·subF32sAVX2(SB), NOSPLIT, $0-32
	MOVQ d+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DX
	MOVQ n+24(FP), R9
	PACK2(VSUBPS)

// func mulF32sAVX2(d, x, y *byte, n int)
TEXT ·mulF32sAVX2(SB), NOSPLIT, $0-32
	MOVQ d+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DX
	MOVQ n+24(FP), R9
	PACK2(VMULPS)

// func fmaF32sAVX2(d, x, y, z *byte, n int)
TEXT ·fmaF32sAVX2(SB), NOSPLIT, $0-40
	MOVQ d+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DX
	MOVQ z+24(FP), R8
	MOVQ n+32(FP), R9
	PACKSETUP
fmaloop:
	VMOVDQU (R8), Y0
	VMOVDQU (SI), Y1
	VFMADD231PS (DX), Y1, Y0 // Y0 = x*y + z
	PACKFIX(Y0, Y3)
	VMOVDQU Y0, (DI)
	ADDQ $32, SI
	ADDQ $32, DX
	ADDQ $32, R8
	ADDQ $32, DI
	DECQ R9
	JNZ fmaloop
	VZEROUPPER
	RET

// func fillF32sAVX2(d *byte, v uint32, n int)
TEXT ·fillF32sAVX2(SB), NOSPLIT, $0-24
	MOVQ d+0(FP), DI
	MOVL v+8(FP), AX
	MOVQ n+16(FP), R9
	VMOVD AX, X0
	VPBROADCASTD X0, Y0
fillloop:
	VMOVDQU Y0, (DI)
	ADDQ $32, DI
	DECQ R9
	JNZ fillloop
	VZEROUPPER
	RET
