package cufft

import (
	"fmt"
	"unsafe"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/memory"
)

// Complex is complex64 or complex128.
type Complex interface{ ~complex64 | ~complex128 }

// Real is float32 or float64.
type Real interface{ ~float32 | ~float64 }

func size[T any]() uintptr {
	var z T
	return unsafe.Sizeof(z)
}

// sides returns the plan's layouts for this call: an in-place real
// transform of the basic layout pads its real rows to 2·(n/2+1).
func (p *Plan) sides(inPlace bool) (side, side) {
	in, out := p.in, p.out
	if !inPlace || p.m.In != nil || p.m.Type == C2C || p.m.Type == Z2Z {
		return in, out
	}
	pad := func(s side, cplx side) side {
		e := append([]int64(nil), s.dims...)
		e[len(e)-1] = 2 * cplx.dims[len(cplx.dims)-1]
		return side{dims: s.dims, embed: e, stride: 1, dist: 2 * cplx.dist}
	}
	if p.m.Type == R2C || p.m.Type == D2Z {
		return pad(in, out), out
	}
	return in, pad(out, in)
}

// prepare checks a call's plan, type and buffers.
func prepare[I, O any](p *Plan, op string, want Type, in *memory.Buffer[I], out *memory.Buffer[O]) error {
	if err := p.check(op); err != nil {
		return err
	}
	if p.m.Type != want {
		return fmt.Errorf("%s: a %v plan, and these buffers are for %v: %w", op, p.m.Type, want, driver.ErrInvalidInput)
	}
	inPlace := in != nil && out != nil && in.Ptr() == out.Ptr() && in.Ptr() != 0
	si, so := p.sides(inPlace)
	if err := buffer(p, op, "in", in, si.extent(int64(p.m.Batch))); err != nil {
		return err
	}
	if err := buffer(p, op, "out", out, so.extent(int64(p.m.Batch))); err != nil {
		return err
	}
	p.mu.Lock()
	work := p.work
	p.mu.Unlock()
	if p.m.ManualWorkArea && p.ws > 0 && (work == nil || work.Closed()) {
		return fmt.Errorf("%s: %v: ManualWorkArea and no open work area (SetWorkArea): %w", op, p, driver.ErrInvalidInput)
	}
	return nil
}

// ExecC2C transforms in into out in direction dir (cufftExecC2C for
// complex64, cufftExecZ2Z for complex128) on the plan's stream; in and out
// may be the same buffer.
func ExecC2C[T Complex](p *Plan, in, out *memory.Buffer[T], dir Direction) error {
	const op = "cufft.ExecC2C"
	want := C2C
	if size[T]() == 16 {
		want = Z2Z
	}
	if dir != Forward && dir != Inverse {
		return fmt.Errorf("%s: direction %d: %w", op, int(dir), driver.ErrInvalidInput)
	}
	if err := prepare(p, op, want, in, out); err != nil {
		return err
	}
	return p.do(op, func() error {
		if want == Z2Z {
			return p.f.ExecZ2Z(p.h, in.Ptr(), out.Ptr(), backend.FFTDirection(dir))
		}
		return p.f.ExecC2C(p.h, in.Ptr(), out.Ptr(), backend.FFTDirection(dir))
	})
}

// ExecR2C transforms real in into n/2+1 complex numbers per row of out,
// forward (cufftExecR2C: float32 to complex64; cufftExecD2Z: float64 to
// complex128) on the plan's stream.
func ExecR2C[R Real, C Complex](p *Plan, in *memory.Buffer[R], out *memory.Buffer[C]) error {
	const op = "cufft.ExecR2C"
	want := R2C
	if size[R]() == 8 {
		want = D2Z
	}
	if 2*size[R]() != size[C]() {
		return fmt.Errorf("%s: %d-byte reals with %d-byte complex numbers: %w", op, size[R](), size[C](), driver.ErrInvalidInput)
	}
	if err := prepare(p, op, want, in, out); err != nil {
		return err
	}
	return p.do(op, func() error {
		if want == D2Z {
			return p.f.ExecD2Z(p.h, in.Ptr(), out.Ptr())
		}
		return p.f.ExecR2C(p.h, in.Ptr(), out.Ptr())
	})
}

// ExecC2R transforms n/2+1 complex numbers per row of in (the spectrum of a
// real signal) into real out, inverse and not normalised (cufftExecC2R:
// complex64 to float32; cufftExecZ2D: complex128 to float64) on the plan's
// stream. Out of place, cuFFT overwrites in.
func ExecC2R[C Complex, R Real](p *Plan, in *memory.Buffer[C], out *memory.Buffer[R]) error {
	const op = "cufft.ExecC2R"
	want := C2R
	if size[R]() == 8 {
		want = Z2D
	}
	if 2*size[R]() != size[C]() {
		return fmt.Errorf("%s: %d-byte complex numbers with %d-byte reals: %w", op, size[C](), size[R](), driver.ErrInvalidInput)
	}
	if err := prepare(p, op, want, in, out); err != nil {
		return err
	}
	return p.do(op, func() error {
		if want == Z2D {
			return p.f.ExecZ2D(p.h, in.Ptr(), out.Ptr())
		}
		return p.f.ExecC2R(p.h, in.Ptr(), out.Ptr())
	})
}
