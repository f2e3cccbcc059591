// Package worker runs GPU work that may fault in supervised workers, so
// that a faulting kernel does not end the program. After one sticky fault
// (an illegal address, a trap) NVIDIA's driver refuses all further CUDA
// work in the whole process, in every context, new ones too (see
// driver.ErrStickyFault); but the fault stays in its process. A Pool runs
// registered functions in child processes of the program, one or more per
// device: a fault, a crash, a panic or a hang ends the call it happened in,
// the worker is killed and replaced, and the program, its contexts, its
// buffers and the other workers are untouched.
//
// # Functions, arguments, buffers
//
// Go cannot send closures to another process, so functions are registered
// by name at package level and called with typed, plain-data arguments
// and results (Register, Func.Call): numbers, strings, []byte, arrays and
// structs of them, up to MaxValueSize bytes in all. The worker is the program itself,
// started again with a marker in its environment: main (and TestMain) calls
// Main first, which serves as a worker when the marker is set and returns
// at once otherwise.
//
// Device memory stays the parent's: an argument's Buffer fields (made by
// Share from a *memory.Buffer) travel as IPC handles
// (cuIpcGetMemHandle), the worker maps each allocation once
// (cuIpcOpenMemHandle) and keeps the mapping, and the function opens them
// with Buffer.Open. The worker's writes land in the parent's buffer, and
// those made before a fault stay there. A call runs on the device of its
// buffers.
//
// # Ordering
//
// Call expects the parent's work on the buffers to be complete (synchronize
// the streams that wrote them); CallAfter orders the call after a stream's
// queued work through an interprocess event instead. When a call returns,
// the worker's work is complete: the worker synchronizes its context after
// the function, which is also where it finds a sticky fault.
//
// # Failures and replacement
//
// A call that fails in the worker returns a *CallError with the worker's
// error text and its Failure: Returned (the function's error; the worker
// stays), Faulted (wraps driver.ErrStickyFault), Panicked, Exited (a crash,
// os.Exit, runtime.Goexit), or Expired (the call's context.Context ended
// first: the worker was killed). After every failure but Returned, the
// worker is killed at once and a new one started in the background; the
// next call on its device waits for it. What a dead worker held (its
// context, mappings, streams, modules) is freed by its exit; nothing of it
// remains in the parent.
//
// # On the fake
//
// Over the fake driver (package fake), the same API runs with no GPU: a
// Pool finds the backend's optional backend.ProcessSpawner and runs each
// worker in this process, on a goroutine of its own, over a fake process
// (a backend of its own that shares only the IPC namespace), whose fault
// poisons only it; the calls still travel through pipes. So a test checks
// its fault handling on any machine. One difference the fake cannot hide:
// a hung function's goroutine cannot be killed, so on expiry its process
// is ended (every CUDA call it makes fails from then on) and the goroutine
// is abandoned until the function returns. A function that calls os.Exit
// ends the test binary on the fake; runtime.Goexit is the portable crash.
// Options.Subprocess makes real child processes over the fake too, for
// functions that need no GPU.
//
// # Cost
//
// A call writes one fixed-size frame and reads one, and allocates nothing
// in the parent once its worker runs (benchmarks in bench_test.go: worker
// start, an empty call, a kernel on 1 MiB, replacement after a fault).
package worker
