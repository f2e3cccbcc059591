// Package ptxexec is the fake driver's PTX interpreter: it runs the
// kernels of a PTX module (as NVRTC emits them) on the CPU with CUDA's
// execution model, so that a test of a CUDA C kernel needs no GPU.
//
// # Use
//
// Compile parses and decodes a module; its Globals are placed in device
// memory by the caller (the fake) and Bind patches the code with their
// addresses; Kernel.Run executes one launch over a Memory (the fake's
// allocations) and returns nil or a *Fault naming the CUDA error number,
// the PTX line, the instruction, the address and the thread.
//
// # Execution model
//
//   - Blocks run one after another, in x, y, z order, so a launch is
//     deterministic and repeatable (Launch.Workers > 1 runs blocks on
//     parallel goroutines instead: global atomics stay atomic, anything
//     else blocks share races as on a GPU). A block whose threads spin on
//     memory that only another block can change (a flag, a lock, a work
//     queue, a look-back scan's predecessor) makes the launch go on as
//     resident blocks (resident.go): up to Launch.Resident of them (the
//     device's occupancy), taking turns on one goroutine at their spins
//     and barriers, a finished block's place taken by the next block, as
//     on a GPU. A wait that no schedule can end (every resident thread
//     back in a state it was in, no block finishing: a flag nothing sets,
//     a lock never given back, a block that waits for one that cannot
//     become resident) fails the launch with CUDA_ERROR_LAUNCH_FAILED and
//     a Fault naming the blocks, threads and lines. All of it is counted,
//     never timed, so it is deterministic. A kernel whose entry only
//     computes in registers (an empty kernel) runs no block at all
//     (noeffect.go), so the largest grid takes no time; a launch of any
//     other kernel on more than MaxBlocks blocks or MaxThreads threads
//     (minutes of interpreting or more) is refused (Kernel.Runnable). Within a block, warp after
//     warp runs until each of its threads exits or waits at a barrier or
//     warp collective; then barriers and collectives whose participants
//     have all arrived are released, and the threads run on. A warp whose
//     threads are in the kernel's entry (no call frames) runs in
//     lockstep (lockstep.go): each instruction once for the lanes at it,
//     the group at the lowest pc first, lanes that diverge keeping their
//     own pc and joining again where their pcs meet, a full-warp
//     collective completing in place; in a call the warp's threads run
//     one by one, in order of their linear index. A thread that has taken
//     many backward branches (spinning on a lock or flag) yields until the
//     block's other threads have waited or exited, so a lane spinning on
//     a lock another lane holds lets it run, as independent thread
//     scheduling guarantees. Once a barrier has completed, a warp stops
//     at its first shared-memory store of the phase until the block's
//     other warps have waited, exited or stopped too (storepause.go), so
//     that loads which follow a barrier see what they see on a GPU, where
//     warps leave a barrier together (llm.c's blockReduce in a loop
//     without its final barrier reads a slot another warp then
//     overwrites). Any interleaving the CUDA memory model allows
//     between barriers is one a correct kernel tolerates.
//   - A full warp (all 32 lanes at one instruction, none guarded off)
//     runs straight-line code in one call (fullwarp.go): the common
//     integer, compare, select and float32 instructions over all lanes at
//     once through package lanes (AVX2 code on amd64, its Go loops
//     elsewhere, bit for bit the same), a load or store whose lanes'
//     addresses are consecutive as one block copy after checking the
//     first and last lane, other addresses after one check of all lanes;
//     anything else, or an address that would fault, goes lane by lane,
//     so a fault names the same thread, address and line. A warp whose 32
//     lanes exit, or reach one bar.sync, together is marked as a whole
//     (its threads' structs are not touched until it goes on, or a
//     deadlock report names them).
//   - Block programs (compile.go, blockexec.go): a kernel whose entry has
//     no calls, warp collectives, mbarriers, sleeps, bar.arrive or
//     bar.red, whose bar.sync instructions name one barrier without a
//     thread count, and no loop that branches on what it loads (a spin on
//     memory) is translated once, at its first launch; a launch that is
//     not cooperative runs each block on it, also with an Observer and the
//     in-kernel race checks (the accesses go through the same code; fences
//     and completed barriers tell the checks as the scheduler does). The block's threads run together, instruction by
//     instruction over all its warps (each warp's lanes by the lockstep
//     and full-warp code above, so results and faults are theirs), lanes
//     that diverge in groups that join where their pcs meet, the lowest pc
//     first. A bar.sync that every live thread reaches at once is only a
//     boundary between two regions of the code; threads that reach one
//     while others run wait until none runs. Instructions whose value is
//     the same in every block (the address of a thread's shared slot) run
//     once per launch, those whose value is the same in every thread of a
//     block (a loop's counter, its branch) once per block while every live
//     thread runs them together. The warps' registers lie side by side, so
//     the common instructions of full warps run over all of them in one
//     call (lanes.Warps), and a full block's coalesced ld or st is checked
//     as one run (one span and bounds check). In a 1-D block, values
//     affine in the thread index ((base + stride*%tid.x) & mask: the
//     global index, byte offsets, addresses, and predicates comparing
//     them, which hold for a range of threads) are kept as two scalars
//     for the block and written to the lanes only where an instruction
//     reads them there (affine.go): an ld or st of an affine address is
//     one run from the first and last thread's address (a partial warp
//     too), a guard on such a predicate a block mask; a value that would
//     wrap across the sign within the block, or an address that may
//     fault, goes to the lanes as before. The warps run each instruction in turn,
//     so the loads that follow a barrier come before any warp's next store
//     (what storepause.go gives the general scheduler); a fault names the
//     first thread in this order that faults (the general scheduler's
//     thread too when the faulting threads fault at one instruction).
//   - Cooperative launches (Launch.Cooperative: cuLaunchCooperativeKernel
//     or the cooperative launch attribute) have every block resident at
//     once: the blocks take turns on one goroutine, a thread that spins
//     (many backward branches) letting the other blocks run, and
//     %envreg1:%envreg2 give the address of the grid workspace, so
//     cooperative_groups' grid.sync (CUDA 11.8: an atomic add on the
//     workspace by each block's first thread, which spins until the
//     count's top bit flips) works, also repeatedly. In a launch that is
//     not cooperative the two registers are 0 and grid.sync traps
//     (CUDA_ERROR_LAUNCH_FAILED), as cooperative_groups' code does on the
//     GPU.
//   - Asynchronous copies: cp.async.ca/cg.shared.global (4, 8, 16 bytes,
//     a source size with zero fill), cp.async.commit_group, wait_group and
//     wait_all (async.go): the copy is done when issued, so the waits have
//     nothing to wait for. mbarrier objects in shared memory (init, inval,
//     arrive, arrive_drop, expect_tx, complete_tx, arrive.expect_tx,
//     test_wait and try_wait with a token or .parity, pending_count,
//     cp.async.mbarrier.arrive: mbarrier.go): a wait that finds its phase
//     open returns false and lets the other threads run.
//   - bar.sync / barrier.sync, bar.arrive and bar.red (popc, and, or):
//     16 barriers per block; each counts the threads that arrived at it
//     (bar.arrive included, thread by thread) and completes at the
//     instruction's thread count or, without one, when every thread of
//     the block that has not exited has arrived (different instructions
//     on one barrier number count as one barrier, as on sm_70 and later).
//     A count that can never be reached is a deadlock (below).
//     barrier.cluster.arrive and .wait: a cluster is one block, so the
//     wait is a block-wide barrier of its own and the arrive does nothing.
//   - shfl.sync (up, down, bfly, idx, with the clamp and segment mask of
//     its c operand and its predicate output), vote.sync (all, any, uni,
//     ballot), redux.sync (add, min, max on .u32/.s32; and, or, xor on
//     .b32), match.any/all.sync (.b32, .b64) and bar.warp.sync complete when every lane of the member
//     mask that exists and has not exited waits at the same instruction.
//     Lanes that reach one collective together with different member
//     masks (the groups of a labeled_partition or binary_partition) form
//     one collective per mask. A lane not in its own member mask is
//     CUDA_ERROR_ILLEGAL_INSTRUCTION.
//     A shuffle from a lane outside the group (not in the member mask,
//     exited, or no thread at all) reads 0, as the H200 does; one from
//     outside its segment (the clamp of c) reads the lane's own value.
//     activemask returns the lanes that reached the same activemask
//     while the others of the warp had exited or waited elsewhere.
//   - Deadlock: when no thread can run and nothing can be released (lanes
//     waiting at a shuffle for a lane held at a block barrier, say) the
//     launch fails with CUDA_ERROR_LAUNCH_FAILED and a Fault saying so; so
//     does a spin that no schedule can end (above). A kernel that loops
//     forever changing its registers (a counter) runs forever, as on a GPU.
//   - Memory: global and const addresses go to Memory, with bounds checks
//     (CUDA_ERROR_ILLEGAL_ADDRESS for an address in no allocation or an
//     access past its end) and alignment checks (an access not aligned to
//     its size, vectors to their whole size: CUDA_ERROR_MISALIGNED_ADDRESS).
//     Shared memory is per block: the module's .shared variables, then the
//     dynamic shared memory (extern .shared arrays) of the launch, zeroed
//     at the start of each block. Local memory is per thread: .local
//     frames (%SP, %SPL) and call parameters, up to 64 KiB. Generic
//     addresses of shared and local memory (cvta) lie in windows at
//     0x1000_0000_0000 and 0x2000_0000_0000, below the fake's device
//     memory. Module .global/.const variables are device memory.
//   - Calls: .func with .param arguments and results (call.uni, as NVRTC
//     emits it), recursion included, up to 1024 frames; a frame has its
//     own registers and local memory.
//   - Atomics (atom, red) on global and shared memory: add (integers,
//     f32, f64), min, max, inc, dec, and, or, xor, exch, cas, on 32- and
//     64-bit types. Blocks run one at a time, so they are atomic.
//   - shf (funnel shifts), prmt (every mode), lop3, bfind (.shiftamt),
//     fns, dp4a and dp2a are implemented.
//   - Special registers: WARP_SZ is 32; %laneid, %warpid, %nwarpid,
//     %lanemask_*, %smid (block index mod Launch.SMs), %nsmid; %clock
//     and %clock64 count nanoseconds since the launch began, %globaltimer
//     nanoseconds since 1970; %envreg1 and %envreg2 the grid workspace of
//     a cooperative launch (0 otherwise), the other %envreg* 0;
//     the cluster registers are those of 1x1x1 clusters; %pm* are 0;
//     %reserved_smem_offset_* name 1 KiB of shared memory past the
//     kernel's own (reserved.go), where CUDA 12's cooperative groups keep
//     multi-warp tiles' barriers.
//   - Debug information: the DWARF .section blocks of -G are accepted and
//     ignored; with the .file and .loc directives of -G and -lineinfo a
//     Fault (and an Access) names the CUDA C file and line of the
//     instruction besides the PTX line (for code inlined from a
//     __device__ function of the same file, its own line; from a header,
//     the line of the user's call, through nested inlined_at).
//   - Shared-memory races (Launch.SharedRaces, sharedrace.go): two
//     accesses of different threads of a block to a shared byte, one a
//     write, not both atomic, with no barrier (nor, in one warp, a warp
//     collective) between them, are reported to a SharedRaceObserver.
//     Strong accesses (atomics; ld and st .volatile, .relaxed, .acquire,
//     .release) never race with each other, a strong read of another
//     thread's strong write (a flag, a lock, cooperative groups' software
//     barrier of multi-warp tiles) orders the block as a barrier does, and
//     two plain writes that leave the bytes as the first wrote them
//     (every lane of a warp storing the value they share, as cooperative
//     groups' tile reductions and llm.c's shared[warp] = sum do) are not
//     reported, as racecheck does not report them.
//   - Global-memory races (Launch.GlobalRaces, globalrace.go): two
//     accesses of different threads of one launch to overlapping global
//     bytes, one a write, not both morally strong, that nothing orders,
//     are reported to a GlobalRaceObserver, whatever order the blocks ran
//     in (a shadow of each word touched, launch-wide). Orderings: program
//     order; a barrier of the block; a collective of the warp; release and
//     acquire (a fence or .release st/atom before a write, observed by a
//     read of the other block; atomics carry release sequences), which
//     also covers grid.sync. Volatile and .relaxed ld/st are strong: they
//     never race with each other nor with atomics; a plain access races
//     with a strong one; .cta atomics of two blocks race. Not reported
//     (NVIDIA's idioms): an acquire with no fence on the reader's side
//     (threadFenceReduction), the plain first read of a CAS loop
//     (atomicAdd(double) by atomicCAS), two unordered st that leave the
//     same bytes. Releases and acquires are per thread, as the
//     PTX model has them: a fence releases its thread's accesses and what a
//     barrier of the block or a collective of its warp ordered before it
//     (a missing __syncthreads before one thread's fence and flag is
//     reported); what a thread acquires a barrier spreads to its block, a
//     warp collective to its warp (a missing barrier after one thread's
//     flag spin is reported). A read of bytes
//     the launch had not yet written is marked (Access.Unwritten), so the
//     fake reports it as uninitialised when nothing wrote them before the
//     launch. Races found before a fault are reported; the fault ends the
//     launch, so none after it. With Launch.Workers > 1 a strong ld or st
//     (volatile, .relaxed, .acquire, .release) is checked and done in one
//     step under the lock atomics take, so a flag's release and acquire
//     are judged in the order memory saw them: results are the same with
//     any number of workers. A warp's coalesced 4- or 8-byte access is
//     observed as one Access (Access.Lanes) and shadowed as one record a
//     segment of 32 words until other threads touch those words.
//   - printf (vprintf) formats C conversions (d i u x X o c s p f e g, with
//     flags, width, precision and l/ll) to Launch.Printf as each thread
//     calls it; a failed device-side assert (__assertfail) prints CUDA's
//     message there and fails the launch with CUDA_ERROR_ASSERT (710).
//   - trap fails the launch with CUDA_ERROR_LAUNCH_FAILED (719), as the
//     driver reports a trap.
//
// # Arithmetic
//
// f16 and bf16 (.f16, .f16x2, .bf16, .bf16x2): add, sub, mul, fma (.rn
// only, as PTX allows; .ftz, .sat, .relu), min and max (.NaN), neg and
// abs, setp (an x2 setp sets one predicate per half), and cvt to and from
// .f32, .f64, the integers and each other in every rounding mode (.relu,
// .satfinite, the packing cvt.rn.f16x2.f32), all correctly rounded. neg
// and abs flip or clear the sign bit, NaN included.
//
// Float arithmetic is package fpu's, bit for bit as the GPU computes it:
// correctly rounded add, sub, mul, div, fma, sqrt, rcp and cvt in every
// rounding mode (.rn, .rz, .rm, .rp; subnormals included, no double
// rounding), .ftz and .sat, PTX's min/max and NaN rules (float32 NaN
// results are the canonical 0x7fffffff), ordered and unordered setp, and
// saturating float-to-integer cvt. atom.add.f32 on global memory flushes
// subnormals, as the PTX ISA says; on shared memory it does not. Integer
// arithmetic is exact two's complement at the instruction's width;
// division by zero gives what the H200 gives (all ones for unsigned and
// -1 for signed quotients, the dividend for remainders,
// docs/h200-facts.md); shifts past the width give 0 (or the sign).
//
// The approximate instructions (ex2, lg2, sin, cos, rcp, rsqrt, sqrt,
// tanh .approx.f32, div.approx, div.full) are not specified bit for bit:
// fpu computes them within half an ulp of the true value, and the H200
// differs from the true value by up to ex2 2 ulp, rcp 1 ulp, rsqrt 1.5
// ulp, sqrt 1 ulp, lg2 6.6e-6 absolute, tanh 129 ulp, and sin and cos by
// an absolute error that grows with |x| (docs/h200-facts.md, fpu's
// documentation), so a comparison with a GPU must allow those. Library
// functions built on exact instructions (sinf's reduction, the integer
// and fma steps of expf) match bit for bit. ptxas contracts a mul
// followed by an add into an fma on the GPU; the interpreter executes the
// PTX as written, so an unfused mul.f32 + add.f32 pair in the PTX can
// differ from the GPU in the last bit.
//
// # Refused at load
//
// Anything not implemented is a *LoadError from Compile (the fake turns
// it into CUDA_ERROR_INVALID_PTX at cuModuleLoadData) naming the line
// and instruction: vector registers; textures and surfaces (tex, tld4,
// suld, sust: no texture objects in the fake); the approximate f16
// instructions (ex2, tanh .f16) and set.f16x2; the rest of sm_90's
// asynchronous machinery, not yet modelled: cp.async.bulk and its tensor
// forms (TMA: they need tensor maps), cp.async with a cache-policy
// operand, wgmma, setmaxnreg, elect, griddepcontrol, and clusters beyond
// 1x1x1 (mbarrier on .shared::cluster or with .cluster scope);
// indirect branches and calls, extern .global variables, taking the
// address of a kernel parameter, 32-bit addressing, saturating integer
// cvt, and any opcode or modifier the decoder does not know (cache hints
// and memory-order qualifiers are accepted and ignored: blocks run one at
// a time).
//
// # Speed
//
// Instructions are decoded once into a compact form: every operand is a
// slot of a register file (constants and special registers included),
// branch targets are indices, and the values of a launch's parameters and
// special registers are preloaded instead of moved. A warp in lockstep
// keeps its registers slot by slot, the 32 lanes' values of a slot side
// by side, so one dispatch runs an instruction for the whole warp; a
// load's lanes look their allocation up once. When all 32 lanes run an
// instruction, the common ones run in plain loops over the lanes
// (fullwarp.go: no per-lane mask or bounds check) and a scalar ld or st
// checks each lane's address against one cached allocation as it goes,
// falling back to lane by lane (and so to the same fault) otherwise. A
// warp that stays in lockstep keeps its registers from block to block and
// restarts its threads as it starts. An Observer without the in-kernel
// global checks keeps these paths: it is told of each run of lanes whose
// addresses follow one another as one Access (observewarp.go). The
// per-instruction path has no
// maps, interfaces, allocation or reflection; with Launch.Observe nil and
// no shared-race checks, each costs one comparison per memory
// instruction. A block program (above) adds one dispatch of an
// instruction for all the warps of a block, barriers without a scheduler
// pass, and the block-invariant and block-uniform instructions run once;
// while every thread of the block runs together, and in the straight-line
// code of a group of its threads, a loop of its own takes each
// instruction straight to that code (blockwhole.go, blockgroup.go).
// BenchmarkSaxpy (elementwise, 4M threads, 1 and 2 workers),
// BenchmarkBlockSum (a shared-memory tree reduction), BenchmarkMatmul,
// BenchmarkSoftmax and BenchmarkAxpy measure it, beside Go loops of the
// same work (BENCHMARKS.md).
package ptxexec
