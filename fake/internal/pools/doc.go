// Package pools is the fake driver's room for stream-ordered memory pools
// (backend.MemPools): each device's default and current pool, the pools
// cuMemPoolCreate makes, their attributes and access, and the accounting
// by which freed pool memory is cached and reused in stream order.
//
// The room owns the pools under its own lock, a leaf of the fake's lock
// ladder: the core calls it holding its own lock (Backend.mu), because a
// pool's bytes and its device's used memory change together, and the room
// takes no lock of the core. What it needs of the core comes with the
// call: the [Stream] an allocation or a free is on (which answers whether
// it waits on another stream's free), the [Item] of a queued free, a
// function that carves an allocation's address from the device, and the
// bytes each call gives back to the device, which the core subtracts from
// the device's used memory.
//
// The pool entry points of backend.MemPools are [EntryPoints], which the
// fake embeds: they check their arguments and call the room under the
// core's lock through [Core] (the entry-point prologue, device checks, the
// core's lock with the device accounting, new handles and call sites).
// The stream-ordered allocations and frees stay the core's.
package pools
