// Package fake is an in-process CUDA driver that needs no GPU, so that the
// whole library, and programs built on it, run and compute real results in
// CI. New returns a *driver.Driver that every package of the module works
// on as on the real one; Of returns what a test asks of the fake beyond
// that (Fake: leaks, call counts, kernel faults, late kernel bodies).
//
//	drv := fake.New(fake.Devices(2), fake.Kernel("scale", scaleBody))
//	...
//	if leaks := fake.Of(drv).Leaks(); len(leaks) > 0 { ... }
//
// In a test, cudatest.Fake(t, opts...) is New with the leak check done at
// the test's end, and cudatest.Driver(t) the GPU where one loads and the
// fake elsewhere. NewBackend gives the fake as a driver backend (Backend),
// for a test's decorator around it.
//
// The fake also has cuBLAS, cuRAND and cuFFT (packages cublas, curand,
// cufft), computed on the CPU in stream order: see fake/internal/cublas,
// fake/internal/curand and fake/internal/cufft for what matches NVIDIA's
// libraries and how closely. Its NVML (package nvml) reports the fake's own
// devices, allocations and contexts, with readings a test sets through
// NVMLDevice and faults it injects with FailNVML (fake/internal/nvml).
//
// It behaves like the real driver on everything a caller can see, as
// measured on an H200 (driver 580, CUDA 13.0), and the conformance suite in
// package conformance holds both to it:
//
//   - Devices: H200-like attributes (compute capability 9.0, 132 SMs),
//     8 GiB of memory each unless WithDevice says otherwise.
//   - Contexts: the current context and the context stack are per OS thread;
//     primary contexts are reference counted; calls that need a current
//     context fail with CUDA_ERROR_INVALID_CONTEXT without one, and objects of
//     a destroyed context with CUDA_ERROR_CONTEXT_IS_DESTROYED. Handles are
//     never reused, so a stale handle is a clean error, never a crash.
//   - Streams are ordered queues. Work does not run when it is enqueued, but
//     when something waits for it: a synchronize runs what it needs (on the
//     goroutine that waits), and a query, which never blocks, starts the
//     next pending item on a goroutine of its own and answers
//     CUDA_ERROR_NOT_READY, so a polling loop finishes and a wait with a
//     deadline returns at its deadline while a long kernel runs. The
//     NULL/legacy stream synchronises with the context's blocking streams
//     (the per-thread default stream among them), and they with it; event
//     waits run the recording stream up to the record. Work runs one item
//     at a time. A stream holding more than 1024 items runs its oldest ones on the
//     next enqueue, as a full launch queue blocks.
//   - Memory is Go byte slices at fake device addresses, with unmapped gaps
//     between allocations. Fresh allocations are poisoned (every byte 0xA5).
//     Every copy and memset must stay inside one allocation (else
//     CUDA_ERROR_INVALID_VALUE, nothing written), and every kernel access
//     too (else the launch fails with CUDA_ERROR_ILLEGAL_ADDRESS).
//   - IPC handles open in another fake of the same process (the fake's
//     stand-in for another process) and map the same storage.
//   - Kernels run in a PTX interpreter (package fake/internal/ptxexec):
//     PTX loaded with ModuleLoadData (from a real NVRTC, a file, a fatbin's
//     uncompressed PTX entry) runs with CUDA's execution model, blocks of
//     warps of 32 threads, shared memory, barriers, warp shuffles and votes,
//     atomics, local memory and calls, blocks one after another (Workers
//     runs them in parallel); blocks that spin on memory another block of
//     the launch sets (a flag, a lock, a work queue, a look-back scan) run
//     as resident blocks, as many as the device's SMs hold, taking turns,
//     and a wait that no schedule can end fails the launch
//     (CUDA_ERROR_LAUNCH_FAILED: KernelFault names the blocks and lines).
//     An out-of-bounds access fails the launch with
//     CUDA_ERROR_ILLEGAL_ADDRESS, sticky, and KernelFault says which PTX
//     line, instruction, address and thread; PTX the interpreter cannot run
//     is CUDA_ERROR_INVALID_PTX at load, and LoadError says why. Module
//     .global and .const variables live in device memory (ModuleGetGlobal).
//     printf prints to os.Stdout (KernelOutput redirects it); a failed
//     assert fails the launch with CUDA_ERROR_ASSERT.
//   - Kernels can also be Go functions registered with Kernel, which take
//     precedence over the PTX of their entry. The fake NVRTC checks that
//     every __global__ function of a program has one and emits PTX (and
//     for sm_XX a CUBIN) declaring them; ModuleLoadData loads that. A launch
//     calls the body once per thread, with its arguments decoded from the
//     kernel parameter array.
//
// Real CUDA C: NVRTC needs no GPU. Where NVIDIA's libnvrtc is installed, the NVRTC
// is NVIDIA's compiler (Implementation "libnvrtc on the fake"), found the
// first time it is asked for as gpu.LoadNVRTC finds it (package loader:
// NOCGO_CUDA_LIBNVRTC, then libnvrtc.so.13, .12, .11.2, CUDA_HOME and
// /usr/local/cuda, NVIDIA's pip wheels): module.Compile turns the user's
// real CUDA C into real PTX, which ModuleLoadData loads and the PTX
// interpreter runs, with no Go body. A Go body registered with Kernel still
// takes precedence for its kernel, also for a name expression (its body is
// found under NVIDIA's lowered name). The default target is the fake
// device's architecture (sm_90), capped by module.Compile to the newest one
// that NVRTC knows; a CUBIN from this compiler is the fake's (the PTX
// behind an ELF magic), since the fake runs no machine code, and so the
// compile cache keeps its entries apart from NVIDIA's own on a GPU. The
// NVRTC option gives the compiler explicitly; PretendNVRTC forces the
// pretend compiler below (fast, the same on every machine, but every
// kernel needs a Go body). Programs of either are the fake's handles:
// a destroyed program is NVRTC_ERROR_INVALID_PROGRAM, never a call into
// libnvrtc, FailNth applies, and Leaks lists programs not destroyed.
//
// To get the same in CI: on Debian, add "contrib non-free" to the
// components of the apt sources and apt-get install libnvrtc11.2 (NVRTC
// 11.8, a 16 MB download; .ci/install-nvrtc.sh in this repository does it);
// where Python is around, pip install nvidia-cuda-nvrtc-cu12 (newer
// NVRTC), which the loader finds in site-packages, or set
// NOCGO_CUDA_LIBNVRTC to a libnvrtc.so. Ubuntu's nvidia-cuda-toolkit is
// not needed. Set NOCGO_CUDA_REQUIRE_NVRTC=1 so that the tests that need
// libnvrtc (the conformance suite's CUDA C group, TestFakeInterpreted) fail
// instead of skipping when it is missing.
//
// The fake's pretend NVRTC (PretendNVRTC, or no libnvrtc) reads the
// options NVRTC 13.0 knows (others are NVRTC_ERROR_INVALID_OPTION), applies #include (in-memory
// headers, then -I directories; NVRTC's built-in headers are taken unseen),
// #define, #if/#ifdef/#ifndef/#elif/#else/#endif (lightly) and #error, and
// checks braces. Every __global__ function left must have a Go body with as
// many parameters, else the compile fails with a log in NVRTC's format
// ("k.cu(3): error: fake NVRTC: kernel "foo" has no Go body; register one
// with fake.Kernel"). Templates are compiled through name expressions,
// whose bodies are registered under the expression's text ("scale<float>");
// their lowered names are PTX identifiers in the style of C++ mangling
// ("_Z5scaleI5floatE"), not the real ones.
//
// Beyond the core seam the fake implements the optional interfaces of
// package backend that modules use: loads with the JIT's logs (the PTX
// checks' findings in the error log), a linker for PTX inputs that stand
// alone (what the linker refuses is said in its error log), launches with clusters and
// cooperative grids, checked as the driver checks them, and the occupancy
// queries, from the device's attributes.
//
// FailNth injects a failure into the n-th call of any entry point, and
// Fake.Leaks lists what a test forgot to release, as structured Leak
// values.
//
// The fake sees what a GPU hides: with DetectRaces (on by default in
// cudatest.Fake) it reports two accesses to the same device bytes from work
// that nothing orders (two streams, a stream and the host's synchronous
// work), at least one a write, and reads of device memory nothing wrote,
// as Hazard values that name both operations, their streams, the bytes,
// the Go call sites that enqueued them and a kernel's PTX line, block and
// thread. Orderings the driver cannot see are declared with
// Fake.DeclareOrder. See DetectRaces for what is checked.
//
// # What the race detector checks, and what it does not
//
// Accesses it sees: copies of every kind (host↔device, device↔device,
// peer, 2D, 3D; the host side too where it is page-locked memory that the
// copy reads or writes as it runs, 1D copies only), memsets, kernels (the
// exact bytes the PTX interpreter touches, and Go bodies' Load and Store),
// the fake math libraries' reads and writes, NCCL collectives (each rank's
// send and receive buffers), and stream-ordered memory: cuMemAllocAsync is
// an access every use must follow, cuMemFreeAsync a write of the whole
// allocation every use must precede. Memory it checks: device memory,
// page-locked host memory (cuMemHostAlloc, cuMemHostRegister) and memory
// of another process mapped through IPC; the bytes of the last two, and of
// managed memory, count as written from the start (others write them
// unseen), so only device memory yields reads of uninitialised memory.
//
// Orderings it knows: stream order; an event record and a wait for it
// (Stream.Wait, Stream.WaitStream); a stream, event or context synchronize
// the host observed (and a query that found the work complete, a
// synchronous copy or memset, a cuMemFree); the legacy default stream's
// implicit synchronisation with the blocking streams of its context (not
// with non-blocking streams); an NCCL collective's rendezvous of its
// ranks; the edges of a graph launch between its nodes; and what the
// program declares with Fake.DeclareOrder. The order the fake happens to
// run work in changes nothing: each piece of work gets its clock when it
// is enqueued.
//
// Inside an interpreted launch (ptxexec's globalrace.go and
// sharedrace.go): races between the launch's threads on shared memory
// (SharedMemoryRace) and on global memory (GlobalMemoryRace), by CUDA's
// memory model, whatever order the fake ran the blocks in: barriers, warp
// collectives, grid.sync and release/acquire (a fence or .release before a
// write, observed by a read) order threads; volatile/.relaxed accesses and
// atomics never race with each other, .cta atomics of two blocks do; an
// acquire without a fence on the reader's side, a CAS loop's first plain
// read and two writes of the same value are not reported, so NVIDIA's
// idioms (threadFenceReduction, atomicAdd(double) by atomicCAS) stay
// quiet. An acquire is the reading thread's: a barrier spreads it to its
// block and a warp collective to its warp, so a flag spun on by one thread
// and data read by the others with no __syncthreads between races; a
// release covers all its block did before it. A read of bytes the launch
// had not yet written (an atomicCAS on a lock word nothing wrote) is an
// UninitializedRead when nothing wrote them before the launch either; when
// that read races with the launch's later write of them it is one
// GlobalMemoryRace with Hazard.Unwritten set instead. A kernel that races and then faults reports
// the races found before the fault, and the launch fails with the fault.
//
// Not checked: the host's own reads and writes of host memory (plain Go
// code the fake cannot see), so a host read of a page-locked buffer
// before the copy into it completes is not reported; another process's
// accesses to memory it exports through IPC (each process has its own
// detector); memory a graph allocates (memory nodes) and work inside a
// stream capture (the graph's launch is checked instead); the host side of
// 2D and 3D copies. The host is one party: a synchronize observed on any
// goroutine orders what every goroutine does next, so a race between two
// host goroutines that never synchronize with each other is missed, but no
// race is ever reported where there is an ordering.
//
// Reports: each Hazard names both operations, their streams (by the name
// given with stream.Options.Name where there is one), the bytes, the Go
// call sites that enqueued them with the library's own frames left out
// (the first frame is the user's call), and says how to order the two
// (Hazard.Fix). A read that ran before the write it races with, and so
// found bytes nothing had written yet, is one Race report with
// Hazard.Unwritten set, not a Race and an UninitializedRead. One report is
// made per pair of operations and allocation, not per byte.
//
// # Inside: the core and its rooms
//
// This package is the fake's core: devices, contexts and the per-thread
// current context, streams, events and how queued work runs, the memory
// table, modules and launches, under one lock (Backend.mu). The other parts
// are rooms under fake/internal, each owning its state and its own lock and
// reaching the core only through a narrow interface of its own, which a
// small adapter here implements (docs/ARCHITECTURE.md draws them):
// run-time compilation is fake/internal/nvrtc (nvrtc.Core), virtual memory
// fake/internal/vmm (vmm.Core), NCCL fake/internal/nccl (nccl.Core, whose
// items run on the core's streams through nccl.Exec), the memory pools
// fake/internal/pools (a leaf: called with Backend.mu held, given what it
// needs with each call), graphs with stream capture fake/internal/graphs
// (graphs.Core; a leaf, whose entry points are its own methods, promoted
// through the field of the backend that embeds it).
//
// The lock order is one rule: locks are taken down a ladder, never up it.
//
//  0. The core's execution lock, under which queued work runs (a room's
//     items take their room's lock under it). A room never holds its own
//     lock when it asks the core to wait for or run queued work
//     (vmm.Core.Quiesce, nccl.Core.Backpressure, nccl.Exec), which takes
//     this lock or holds it already; an item that waits for a room (NCCL's
//     ranks meeting) lets it go first (nccl.Exec.Unlocked).
//  1. A room's own lock. A room may hold it while it calls its interface to
//     the core.
//  2. The core's lock, Backend.mu: taken only by the core, and by the
//     methods of the interfaces it gives the rooms. While the core holds it,
//     it calls no room of rung 1 (Leaks and a process's Exit ask the rooms
//     first).
//  3. The locks of the parts the core calls while it may hold Backend.mu
//     (the memory pools, the race detector, the graph room, an event's
//     export lock): leaves, while one of which is held no other lock is
//     taken. The graph room calls its interface to the core (graphs.Core)
//     holding no lock of its own; the core calls the room's capture hooks
//     from its enqueue path with Backend.mu held.
package fake
