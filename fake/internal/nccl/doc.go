// Package nccl is the fake driver's room for NCCL (backend.NCCLProvider):
// communicators across the fake devices of one backend, the unique ids
// that make them, the groups of each OS thread, the rendezvous of a
// collective's ranks and the arithmetic of its reductions.
//
// The room owns all of that under its own lock, and its ranks meet on its
// own condition variable: a rank waiting for its peers holds none of the
// core's locks. A collective is one item of work on each rank's stream;
// the room reaches the fake's core only through [Core]: the entry-point
// prologue and the calling thread's current device, a stream and a device
// allocation looked up, items queued on streams and run ([Exec]: let the
// execution lock go, run a peer's stream up to its part), device bytes to
// compute with, and the race detector told of the collective's accesses
// and rendezvous. Following the fake's lock ladder (see package fake), the
// room may hold its lock while it calls Core, except
// [Core.Backpressure], which may wait for queued work; its items take the
// room's lock under the execution lock, and let go of the execution lock
// before they wait on the room's condition variable.
package nccl
