// Package cufft runs fast Fourier transforms on the GPU with NVIDIA's cuFFT
// (libcufft.so.12 of CUDA 13, .11 of CUDA 12), with no cgo: plans of one,
// two and three dimensions and batched, strided plans of the advanced data
// layout (PlanMany), complex-to-complex, real-to-complex and
// complex-to-real, in single and double precision, executed on a stream.
//
// libcufft is opened on first use, found as package loader finds libcuda:
// NOCGO_CUDA_LIBCUFFT, libcufft.so.12 and .11 through the system loader,
// the CUDA directories, and the NVIDIA pip wheels' site-packages/nvidia/
// cu13/lib and nvidia/cufft/lib. Where it cannot be opened, making a plan
// fails with an error listing every path tried; nothing else in the module
// is affected.
//
//	p, err := cufft.Plan1D(s, 1<<20, cufft.C2C, 1) // owned: Close destroys it
//	defer p.Close()
//	err = cufft.ExecC2C(p, in, out, cufft.Forward) // *memory.Buffer[complex64]
//
// cuFFT's conventions hold: Forward is exp(-2πi·jk/n) and Inverse
// exp(+2πi·jk/n), neither normalised (a forward and an inverse transform
// multiply by n); R2C writes n/2+1 complex numbers along the last axis and
// C2R reads them; sizes are slowest-varying first (row-major). Out of place,
// C2R overwrites its input. In the basic layout an in-place real transform
// needs its real rows padded to 2·(n/2+1) numbers.
//
// A plan is bound to a stream of its context (SetStream rebinds it) and
// executes there: the call queues the transform and returns. Buffers must be
// open, in the plan's context, of the plan's element types and long enough
// for the plan's layout; all of it is checked before cuFFT is called, and a
// refused call changes nothing. A plan's work area is cuFFT's own by
// default; with ManualWorkArea the caller gives one of WorkSize bytes
// (SetWorkArea) and keeps it alive while the plan runs.
//
// On the fake driver (package fake) the same code runs on the CPU in stream
// order, with gonum's FFT (see fake/internal/cufft), within cuFFT's accuracy
// of the GPU's results.
package cufft
