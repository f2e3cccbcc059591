// Package graph holds CUDA graphs: work recorded once and replayed with one
// launch, which costs far less per kernel than launching each kernel.
//
// A Graph is made by stream capture or built node by node:
//
//   - Capture (or BeginCapture and EndCapture) records the work enqueued on
//     a stream, owned or wrapped (stream.Wrap: a stream handed over by
//     another library), instead of running it. Other streams join the
//     capture by waiting on an event recorded in a capturing stream (fork),
//     and are joined back the same way before EndCapture (join).
//   - New and the Add methods build a graph explicitly: kernel, copy,
//     memset, event record and wait, child graph and empty nodes, each with
//     its dependencies; host nodes (AddHost: a Go function run at every
//     launch), memory allocation and free nodes (AddAlloc, AddFree), and
//     conditional nodes (NewCondition, AddIf, AddWhile; CUDA 12.3+), whose
//     body is a Graph of its own, built the same way.
//
// Instantiate turns a Graph into an Exec, which Launch replays on any
// stream of the same context, in that stream's order. Update swaps a new
// graph of the same shape into an Exec (an *UpdateError says why it was
// refused); SetKernel, SetCopy, SetFill and SetHost change one node of an
// Exec, for its next launches. DOT writes a graph in Graphviz's language,
// for debugging.
//
// # Retention
//
// A graph keeps alive what its nodes use, so that a replay never reaches
// freed memory: buffers of copy and fill nodes, the modules of kernel
// nodes, what child graphs keep, and the buffers handed to KeepBuffer (a
// kernel's arguments are addresses, which the graph cannot follow). Clones
// and Execs keep the same until their own Close. While anything keeps a
// buffer or module, its Close fails with an error wrapping ErrRetained and
// changes nothing: close graphs and Execs first (with defer, make them
// after the buffers they use). Work already launched is not waited for, as
// for any stream work: synchronize before closing what it uses. Go values
// are handed over with Retain, through a CUDA user object: its function
// runs once the last graph or Exec that has it is gone and their work is
// done, and may then free what it kept.
//
// Ownership follows the rest of the library: a Graph and an Exec are owned
// and destroyed by Close (cuGraphDestroy, cuGraphExecDestroy); a second
// Close returns nil; use after Close returns an error wrapping driver.ErrClosed.
// Both hold their context until Close. A Node is a value that belongs to
// its graph and is valid while the graph is open.
//
// Except in Relaxed mode, a capture must end on the OS thread that began
// it: Capture keeps its goroutine on one thread; callers of BeginCapture
// and EndCapture lock theirs (runtime.LockOSThread).
//
// During capture the driver refuses synchronous calls on the capturing
// stream or its context (Synchronize, Query, driver.Context.Synchronize):
// they fail with ErrCaptureUnsupported and invalidate the capture, and
// EndCapture then fails with ErrCaptureInvalidated. Capture with a function
// (Capture) always ends the capture, whatever the function returns.
//
// The backend must implement backend.Graphs (the real driver and the fake
// do); otherwise every call returns an error wrapping errors.ErrUnsupported.
package graph
