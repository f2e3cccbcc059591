// Package curand generates random numbers on the GPU with NVIDIA's cuRAND
// (libcurand.so.10) host API, with no cgo: pseudo-random generators
// (Philox4_32_10, XORWOW, MRG32k3a, MTGP32) and quasi-random ones (Sobol,
// 32- and 64-bit, plain and scrambled), writing uniform, normal, log-normal
// and Poisson numbers, or raw bits, into device buffers on a stream.
//
// libcurand is opened on first use, found as package loader finds libcuda:
// NOCGO_CUDA_LIBCURAND, libcurand.so.10 through the system loader, the CUDA
// directories, and the NVIDIA pip wheels' site-packages/nvidia/cu13/lib and
// nvidia/curand/lib. Where it cannot be opened, New fails with an error
// listing every path tried; nothing else in the module is affected.
//
//	g, err := curand.New(s, curand.Philox)   // owned: Close destroys it
//	defer g.Close()
//	err = g.SetSeed(1234)
//	err = curand.Uniform(g, buf)             // buf is a *memory.Buffer[float32]
//	err = curand.Normal(g, gauss, 0, 1)      // an even count, as cuRAND requires
//
// A Generator is bound to a stream (SetStream rebinds it) of its context:
// generation queues work on that stream and returns; the numbers are there
// once the stream reaches it. Every buffer must be open and in the
// generator's context; lengths are checked before cuRAND is called (normal
// and log-normal numbers of pseudo-random generators come in pairs; the
// count of a quasi-random call is a multiple of its dimensions), and a
// refused call changes nothing, the generator's offset included. Owned,
// borrowed and wrapped buffers and streams all work.
//
// # Reproducibility
//
// The same generator, seed, offset and ordering give the same numbers on
// every run and every GPU. The sequence continues across calls: two calls of
// n numbers give what one call of 2n gives, except where cuRAND's ordering
// says otherwise. SetOffset sets the position; SetSeed changes the seed and
// keeps the position (as libcurand does), so the same numbers again take
// SetSeed and SetOffset(0).
//
// # The fake
//
// On the fake driver (package fake) the same code runs on the CPU in stream
// order. Uniform numbers and bits of Philox4_32_10, XORWOW, MRG32k3a and
// Sobol (its first dimensions) are cuRAND's algorithms and order; normal,
// log-normal and Poisson numbers follow cuRAND's distributions and checks
// with values of their own. The fake's package documentation says exactly
// which outputs are cuRAND's bit for bit.
package curand
