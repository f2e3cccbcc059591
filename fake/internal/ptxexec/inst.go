package ptxexec

import "fmt"

// inst is one decoded instruction. Every source operand is a register
// slot: immediates, symbol addresses and special registers live in slots
// that a thread's frame is initialised with, so that execution never
// looks at operand kinds, names or maps.
type inst struct {
	op    uint8
	kind  uint8 // operand type: kU, kS, kF, kPred
	bits  uint8 // operand width: 8, 16, 32, 64
	mode  uint8 // rounding mode, comparison, shuffle mode, atomic op
	flags uint8 // fFTZ, fSat, fGuardNeg, ...
	vec   uint8 // elements of a vector ld/st (1, 2, 4)
	size  uint8 // bytes per element of a memory access
	k2    uint8 // cvt: source kind
	b2    uint8 // cvt: source width
	guard int32 // predicate slot, or -1
	d     int32
	a     int32
	b     int32
	c     int32
	v     [4]int32 // vector registers of ld/st and mov pack/unpack
	imm   int64    // address offset, branch target, call site
	mask  uint64   // mask of the result's width
}

// Operand kinds.
const (
	kU    = iota // .u and .b types
	kS           // .s types
	kF           // .f types
	kPred        // .pred
)

// Instruction flags.
const (
	fFTZ      = 1 << iota // flush subnormals
	fSat                  // saturate
	fGuardNeg             // @!%p
	fApprox               // an approximate instruction
	fCombNeg              // setp combine predicate negated
	fIntRound             // cvt rounds to an integral value (.rni, .rzi, ...)
	fFull                 // div.full
)

// Opcodes.
const (
	opNop = iota
	opMov
	opAddImm // d = (a + imm) & mask: local addresses, cvta
	opPack   // mov.b64 d, {v0, v1}
	opUnpack // mov.b64 {v0, v1}, a
	opAddI
	opSubI
	opMulLo
	opMulHiU
	opMulHiS
	opMulWideU
	opMulWideS
	opMadLo
	opMadHiU
	opMadHiS
	opMadWideU
	opMadWideS
	opDivU
	opDivS
	opRemU
	opRemS
	opMinU
	opMinS
	opMaxU
	opMaxS
	opAbsS
	opNegI
	opAnd
	opOr
	opXor
	opNot
	opCnot
	opShl
	opShrU
	opShrS
	opPopc
	opClz
	opBrev
	opBfeU
	opBfeS
	opBfi
	opAddF32
	opSubF32
	opMulF32
	opFmaF32
	opDivF32
	opMinF32
	opMaxF32
	opAbsF32
	opNegF32
	opCopysignF32
	opSqrtF32
	opRcpF32
	opRsqrtF32
	opEx2F32
	opLg2F32
	opSinF32
	opCosF32
	opTanhF32
	opAddF64
	opSubF64
	opMulF64
	opFmaF64
	opDivF64
	opMinF64
	opMaxF64
	opAbsF64
	opCopysignF64
	opNegF64
	opSqrtF64
	opRcpF64
	opRsqrtF64
	opSetpI
	opSetpF
	opSelp
	opCvt
	opLdGlobal
	opStGlobal
	opLdShared
	opStShared
	opLdLocal
	opStLocal
	opLdParam
	opLdGeneric
	opStGeneric
	opAtom
	opBra
	opCall
	opRet
	opExit
	opBar
	opShfl
	opVote
	opActivemask
	opWarpSync
	opTrap
	opClock
	opGlobalTimer
	opShfL
	opShfR
	opPrmt
	opLop3
	opBfind
	opDp4a
	opDp2a
	opRedux     // redux.sync: a warp collective
	opMatch     // match.any/all.sync: a warp collective
	opBarArrive // bar.arrive: counts at a barrier without waiting
	opBarRed    // bar.red: a block barrier with a reduction
	opHalf      // f16/bf16 arithmetic: see half.go
	opCvtPack   // cvt.rn.f16x2.f32 d, a, b: two conversions packed
	opSetpH     // setp on 16-bit floats
	opCpAsync   // cp.async shared <- global: see async.go
	opMbarrier  // mbarrier.*: see mbarrier.go
	opFns       // fns.b32: see bitops.go
	opFence     // membar, fence: a release for the race checks (globalrace.go), else nothing
	opNanosleep // nanosleep: the thread lets others run (resident.go)
)

// Slots every frame has, before its constants and registers.
const (
	sTidX = iota
	sTidY
	sTidZ
	sNtidX
	sNtidY
	sNtidZ
	sCtaidX
	sCtaidY
	sCtaidZ
	sNctaidX
	sNctaidY
	sNctaidZ
	sLaneid
	sWarpid
	sNwarpid
	sSmid
	sNsmid
	sDynSmem
	sTotalSmem
	sResSmemBegin // %reserved_smem_offset_begin (and _0)
	sResSmemEnd
	sResSmemCap
	sResSmem1 // %reserved_smem_offset_1: cooperative groups' scratch
	sLanemaskEq
	sLanemaskLt
	sLanemaskLe
	sLanemaskGt
	sLanemaskGe
	sGridid
	sEnvreg1 // with sEnvreg2: the grid workspace of a cooperative launch
	sEnvreg2
	sFrame // the frame's base address in local memory
	sZero
	sSink // written by "_" destinations
	nSpecial
)

var specialRegs = map[string]int32{
	"%tid.x": sTidX, "%tid.y": sTidY, "%tid.z": sTidZ,
	"%ntid.x": sNtidX, "%ntid.y": sNtidY, "%ntid.z": sNtidZ,
	"%ctaid.x": sCtaidX, "%ctaid.y": sCtaidY, "%ctaid.z": sCtaidZ,
	"%nctaid.x": sNctaidX, "%nctaid.y": sNctaidY, "%nctaid.z": sNctaidZ,
	"%laneid": sLaneid, "%warpid": sWarpid, "%nwarpid": sNwarpid,
	"%smid": sSmid, "%nsmid": sNsmid,
	"%dynamic_smem_size": sDynSmem, "%total_smem_size": sTotalSmem,
	"%reserved_smem_offset_begin": sResSmemBegin, "%reserved_smem_offset_end": sResSmemEnd,
	"%reserved_smem_offset_cap": sResSmemCap,
	"%reserved_smem_offset_0":   sResSmemBegin, "%reserved_smem_offset_1": sResSmem1,
	"%lanemask_eq": sLanemaskEq, "%lanemask_lt": sLanemaskLt, "%lanemask_le": sLanemaskLe,
	"%lanemask_gt": sLanemaskGt, "%lanemask_ge": sLanemaskGe,
	"%gridid":  sGridid,
	"%envreg1": sEnvreg1, "%envreg2": sEnvreg2,
	// A launch without clusters is one of 1x1x1-block clusters.
	"%clusterid.x": sCtaidX, "%clusterid.y": sCtaidY, "%clusterid.z": sCtaidZ,
	"%nclusterid.x": sNctaidX, "%nclusterid.y": sNctaidY, "%nclusterid.z": sNctaidZ,
}

// constRegs are the special registers whose value is the same in every
// launch the fake runs: the other environment registers (the driver's,
// zero here), the cluster registers of a launch without clusters, and
// the performance-monitor counters (never counting).
var constRegs = func() map[string]uint64 {
	m := map[string]uint64{
		"%cluster_ctaid.x": 0, "%cluster_ctaid.y": 0, "%cluster_ctaid.z": 0,
		"%cluster_nctaid.x": 1, "%cluster_nctaid.y": 1, "%cluster_nctaid.z": 1,
		"%cluster_ctarank": 0, "%cluster_nctarank": 1, "%is_explicit_cluster": 0,
	}
	for i := 0; i < 32; i++ {
		if i != 1 && i != 2 {
			m[fmt.Sprintf("%%envreg%d", i)] = 0
		}
	}
	for i := 0; i < 8; i++ {
		m[fmt.Sprintf("%%pm%d", i)] = 0
		m[fmt.Sprintf("%%pm%d_64", i)] = 0
	}
	return m
}()

// warpSize is the value of the PTX constant WARP_SZ.
const warpSize = 32

// Memory windows of generic addresses: shared and local memory appear at
// these bases (below the fake's device address space); everything else is
// global.
const (
	sharedWindow = 1 << 44
	localWindow  = 2 << 44
	windowSize   = 1 << 32
	// gridWindow is where a cooperative launch's grid workspace lies (the
	// address %envreg1:%envreg2 gives, as the driver's does).
	gridWindow = 3 << 44
)

// Atomic operations (inst.mode of opAtom).
const (
	atomAdd = iota
	atomMin
	atomMax
	atomInc
	atomDec
	atomAnd
	atomOr
	atomXor
	atomExch
	atomCas
)

// Memory spaces of atomics (inst.k2 of opAtom).
const (
	spGlobal = iota
	spShared
	spGeneric
)

// Shuffle modes.
const (
	shflUp = iota
	shflDown
	shflBfly
	shflIdx
)

// Vote modes.
const (
	voteAll = iota
	voteAny
	voteUni
	voteBallot
)
