// Package graphs is the fake driver's room for CUDA graphs and stream
// capture (backend.Graphs, backend.GraphNodes, backend.UserObjects): graphs
// and their nodes, instantiated execs and their per-node updates, the
// capture state of each stream, conditional handles and the values of
// their conditions, user objects, and the DOT dump. The core embeds [Room],
// so its methods are the backend's graph entry points.
//
// The room owns all of it under its own lock, a leaf of the fake's lock
// rule (fake's package doc): the core calls the room with its own lock held
// (the capture hooks of its enqueue path: [Room.CaptureRecord] and the
// others named Capture*), and the room, holding its lock, calls no method
// of its [Core] but the lock-free NewHandle. It reaches the core only
// through [Core]: the entry-point prologue, contexts, the work of kernel,
// copy, memset and memory nodes (made and checked by the core, run by the
// room), events, streams (a [Stream], whose [Slot] the core keeps for the
// room) and the queueing of a launch ([Launch]).
package graphs
