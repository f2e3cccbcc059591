// Package nvrtc is the fake driver's room for run-time compilation: the
// compiler the fake hands out (backend.NVRTCProvider), which is NVIDIA's
// libnvrtc when one is found or given (wrapped so that it behaves as part
// of the fake) or else the pretend compiler, and the programs of either.
//
// The room owns the compiler's choice and the program table, under its own
// lock. It reaches the fake's core only through [Core]: the Go bodies of
// kernels registered with fake.Kernel (the pretend compiler's "compile"
// finds them; NVIDIA's registers name expressions' bodies under their
// lowered names), the FailNth rules, a new handle and the caller's site
// for Leaks. Following the fake's lock ladder (see package fake), the room
// may hold its own locks while it calls Core, whose methods take the
// core's; the core calls the room holding none of its own.
package nvrtc
