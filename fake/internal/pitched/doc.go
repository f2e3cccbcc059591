// Package pitched is the fake driver's room for memory in rows: pitched
// allocations (cuMemAllocPitch, backend.Pitched) and the copies of
// rectangles and boxes between pitched host and device memory
// (cuMemcpy2D, cuMemcpy3D and their Async forms, backend.Pitched and
// backend.Copies3D): the checks of their geometry as the driver makes them
// and the row-by-row copy.
//
// The room owns no state and no lock. It reaches the fake's core only
// through [Core]: the core runs each copy as it runs its own (a
// synchronous one in the current context, an asynchronous one on its
// stream), asks the room to prepare it under the core's lock, where the
// room checks its device rows against the memory table and whether its
// host side is page-locked, and then runs what the room prepared, which
// reads the rows' bytes and tells the race detector of each row.
package pitched
