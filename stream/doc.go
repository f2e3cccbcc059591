// Package stream holds CUDA streams and events: owned ones created here,
// foreign ones wrapped without taking ownership, and the special default
// streams, all usable from any goroutine.
//
// Ownership is in the type's kind:
//
//   - New and NewEvent create objects this package owns; Close destroys them.
//   - Wrap and WrapEvent take handles created elsewhere (another library, the
//     CUDA runtime API); Close only detaches and the owner keeps the object.
//     WrapWithOptions is Wrap that also names the stream for reports
//     (WrapOptions.Name, as Options.Name for New).
//   - Default, Legacy and PerThread name the special streams 0x0, 0x1 and
//     0x2; they are never destroyed.
//   - OpenIPCEvent opens another process's event; Close releases this
//     process's reference (cuEventDestroy).
//
// A second Close is a no-op that returns nil; any other use after Close
// returns an error wrapping driver.ErrClosed.
//
// Every stream and event holds its context until Close, whatever its kind
// (see driver.Context for the lifetime rule): it keeps working after the
// *driver.Context it was made with is released, and Close lets go of it.
//
// Stream-scoped calls on a real stream handle (Query, Synchronize, Wait,
// event Record) bind nothing and allocate nothing; only the special streams,
// which the driver resolves through the calling thread's current context,
// make their context current on the calling OS thread for each call and
// restore the thread's context afterwards (see driver.Context).
//
// Errors name the call that failed first (stream.Stream.Synchronize: ...),
// then the object and the driver entry point, and wrap the cause
// (stream.Stream.Synchronize: owned stream 0x1c2 (primary context 0x5a0 on
// device 0): cuStreamSynchronize: CUDA_ERROR_...).
package stream
