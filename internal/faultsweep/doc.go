// Package faultsweep is a test, and holds nothing else: it makes a standing
// guarantee of the library's behaviour under driver failures, by injecting
// a failure into every call of every entry point that realistic code makes,
// on the fake driver (package fake), and checking that the library fails
// cleanly each time.
//
// # Sequences
//
// Each sequence is ordinary user code written with the public API (driver,
// stream, memory, module, graph, nccl), which checks the values it
// computes:
//
//   - kernel: the primary context, a stream, a buffer, an upload, a kernel
//     compiled from CUDA source and launched, a download, a synchronize.
//   - events: two streams, timed events around a fill, a stream waiting for
//     the other, a host callback, Elapsed, event and context synchronizes,
//     a synchronous download.
//   - pool: stream-ordered buffers (AllocAsync, FreeAsync, Close), a view
//     (Slice), fills, a borrowed buffer (Borrow), device to device copies,
//     pinned host memory.
//   - ipc: an owned context, a stream made by "another library" with raw
//     driver calls and wrapped, an upload, memory and an event exported by
//     IPC handles and opened, waited for and read in a peer process (a second
//     fake backend, never faulted).
//   - devices: the driver's and two devices' queries, two primary contexts,
//     peer access enabled and disabled, a wrapped context, stream flags,
//     priority and query, synchronous and peer-to-peer copies, a zeroed
//     allocation, fills of 1, 2 and 4 bytes.
//   - reset: the primary context retained, released and reset.
//   - graphs: a graph captured (capture status, a fill, a launch),
//     instantiated, uploaded and launched; a graph built node by node
//     (kernel, event record and wait, fill, copy, empty, child), counted,
//     cloned, instantiated, updated and launched.
//   - pools: an owned pool (release threshold, peer access, statistics,
//     high water, trim), buffers from it explicitly and as the current
//     pool, the default and current pools wrapped.
//   - managed: managed memory written from the host, advised, prefetched,
//     read back into registered host memory.
//   - pitched: pitched 2D and 3D memory written and read, synchronously and
//     in stream order.
//   - module-ext: a module linked from PTX, a device variable (Global), a
//     kernel's attributes, shared memory limit and occupancy, a launch with
//     thread-block clusters (cuLaunchKernelEx), a template compiled by a
//     name expression.
//   - ipc-open: memory and an event of a peer process opened here (the
//     faulted process is the one that opens).
//   - nccl: two communicators (NewComms), an all-reduce in a Group.
//   - nccl-ranks: NCCL's version, a unique id, two communicators made rank
//     by rank (NewComm) in a Group and split, a broadcast, a reduce, an
//     all-gather, a reduce-scatter and a Send/Recv pair in Groups, the
//     asynchronous state, an abort. The fake's NCCL entry points are faulted
//     too (FailNth with their NCCL names; the code is taken as an ncclResult).
//
// Together they call every entry point that fake.EntryPoints lists, but
// for the few the library never calls on the fake (notCalled, each with
// its reason): TestSweepCoversEveryEntryPoint fails for an entry point no
// sequence reaches, so a new entry point needs a sequence that reaches it.
//
// Everything a sequence makes is closed afterwards in reverse order, each
// Close called until it returns nil (three times at most), as careful user
// code does.
//
// # The sweep
//
// Each sequence first runs twice on a clean fake built with fake.CountCalls:
// both runs must succeed, leak nothing and make the same calls, and
// Backend.Calls gives, for each entry point, how many calls it makes. Then
// for every entry point op, every call index n up to its count, and every
// code of OUT_OF_MEMORY, INVALID_VALUE, ILLEGAL_ADDRESS, LAUNCH_FAILED and
// DEINITIALIZED, the sequence runs on a fresh fake with
// fake.FailNth(op, n, code). The whole cross product runs: about 4600
// runs, a few seconds (more under the race detector).
//
// # The rules
//
// A run with a fault must:
//
//  1. End: no panic, and within a per-run timeout (30 s; 2 min under the
//     race detector), far above the milliseconds a run takes.
//  2. Say what failed. When the fault fired (Calls()[op] >= n), an error
//     reaches the user (from the sequence, or from a Close when the fault
//     fired in a teardown call), and the first one carries the injected
//     code: errors.Is(err, code), or, for an NVRTC entry point, a
//     *backend.NVRTCError with the same number (the fake injects the number
//     as an nvrtcResult). A swallowed fault breaks this rule, with one
//     exception: an injected answer that is the call's answer anyway (the
//     cuFuncGetParamInfo probe past the last parameter, which answers
//     INVALID_VALUE) changes nothing. Sticky codes are not required to carry
//     driver.ErrStickyFault: the library marks the results of work
//     (synchronizes, launches, synchronous copies), where a real kernel
//     fault surfaces; the sweep logs the entry points whose sticky codes
//     come unmarked. ErrClosed is not accepted in place of the code.
//  3. Fail only where the fault is: a run whose fault did not fire must
//     succeed; a fault in a teardown call must leave the sequence itself
//     successful; a fault in the sequence must leave every Close
//     successful; and one fault makes at most one Close call fail, so that
//     a single retry closes the object (a cuMemFree that fails once: Close
//     returns the error, the retry frees, nothing leaks).
//  4. Leak nothing: after the cleanup, Leaks is empty in the faulted backend
//     and in the peer. The one exception is a teardown call that failed with
//     a code that means the object went with its context or the driver
//     (ILLEGAL_ADDRESS and LAUNCH_FAILED, sticky; DEINITIALIZED): the library
//     then counts the object closed (its Close returns the error, marked with
//     ErrStickyFault for a sticky code, and the next Close returns nil), as
//     the real driver frees it when the process ends; an injected code does
//     not poison or shut down the fake, which still lists the object. Every
//     Close must still return, and every object end closed.
//  5. Leave the library working: the same sequence then runs again on the
//     same backend (and the same Driver, when the failed run made one) and
//     must succeed, close everything at the first attempt and leave Leaks as
//     the failed run left it (empty but for rule 4's exception). This holds
//     for every code, sticky ones included: FailNth injects a code at one
//     call and does not poison the fake (only a kernel that faults does;
//     the conformance suite in package conformance covers that), so nothing in
//     the library may remember the failure either.
//
// # Known bugs
//
// A case that finds a bug not yet fixed is listed in knownBugs (known_test.go)
// with a note naming the bug. The sweep still runs it: while it breaks a rule
// it is skipped with the note and what broke, and once it passes the sweep
// fails until its line is removed. A known case runs under a short timeout
// (knownTimeout), so that a known hang costs seconds, not the full timeout.
package faultsweep
