// Package cufft is the fake driver's cuFFT (backend.CUFFT): plans made and
// checked as cuFFT makes them, transforms computed on the CPU in stream
// order through the narrow view of the fake in package ondevice.
//
// The numbers come from gonum's FFT (gonum.org/v1/gonum/dsp/fourier, a Go
// translation of FFTPACK): a well-kept, tested library of mixed-radix
// transforms for every length (primes included, as cuFFT takes them), in
// float64, with cuFFT's conventions: forward is exp(-2πi·jk/n), inverse
// exp(+2πi·jk/n), neither normalised. Multi-dimensional transforms are 1D
// transforms along each axis. Single-precision plans compute in float64 and
// round once, so their results are within cuFFT's documented accuracy of
// the GPU's (which rounds at every stage), never equal bit for bit.
//
// The layouts are cuFFT's: R2C writes n/2+1 complex numbers along the last
// axis, C2R reads them (the rest of the spectrum is their Hermitian
// mirror); the advanced layout addresses element (i0, i1, i2) of batch b at
// b·dist + stride·((i0·embed[1] + i1)·embed[2] + i2); in the basic layout
// (no embedding), an in-place real transform pads the real rows to
// 2·(n/2+1) numbers, as cuFFT's does.
package cufft
