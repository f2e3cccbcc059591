package curand

import (
	"fmt"
	"unsafe"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/memory"
)

// Float is float32 or float64: the element types of the uniform, normal and
// log-normal numbers.
type Float interface{ ~float32 | ~float64 }

// buffer checks that b is open, in the generator's context, and that its
// length suits the call: pairs for normal numbers of pseudo-random
// generators, a multiple of the dimensions for quasi-random ones.
func buffer[T any](g *Generator, op string, b *memory.Buffer[T], pairs bool) error {
	if err := g.check(op); err != nil {
		return err
	}
	if b == nil || b.Context() == nil {
		return fmt.Errorf("%s: nil buffer: %w", op, driver.ErrInvalidInput)
	}
	if b.Closed() {
		return fmt.Errorf("%s: %s: %w", op, b, driver.ErrClosed)
	}
	if b.Context().Handle() != g.hold.Context().Handle {
		return fmt.Errorf("%s: %s is not in the generator's context %s: %w", op, b, g.hold.Context(), driver.ErrWrongContext)
	}
	g.mu.Lock()
	dims := g.dims
	g.mu.Unlock()
	n := b.Len()
	switch {
	case g.kind.Quasi() && n%dims != 0:
		return fmt.Errorf("%s: %d numbers for %d dimensions: the count must be a multiple of the dimensions: %w", op, n, dims, driver.ErrInvalidInput)
	case !g.kind.Quasi() && pairs && n%2 != 0:
		return fmt.Errorf("%s: %d numbers: %v makes normal numbers in pairs, the count must be even: %w", op, n, g.kind, driver.ErrInvalidInput)
	}
	return nil
}

func isDouble[T Float]() bool {
	var z T
	return unsafe.Sizeof(z) == 8
}

// Uniform fills b with uniform numbers in (0, 1] (curandGenerateUniform,
// curandGenerateUniformDouble).
func Uniform[T Float](g *Generator, b *memory.Buffer[T]) error {
	const op = "curand.Uniform"
	if err := buffer(g, op, b, false); err != nil || b.Len() == 0 {
		return err
	}
	return g.do(op, func() error {
		if isDouble[T]() {
			return g.r.GenerateUniformDouble(g.h, b.Ptr(), uintptr(b.Len()))
		}
		return g.r.GenerateUniform(g.h, b.Ptr(), uintptr(b.Len()))
	})
}

// Normal fills b with normal numbers of the given mean and standard
// deviation (curandGenerateNormal, curandGenerateNormalDouble). For
// pseudo-random generators b's length must be even.
func Normal[T Float](g *Generator, b *memory.Buffer[T], mean, stddev T) error {
	const op = "curand.Normal"
	return normal(g, op, b, mean, stddev, false)
}

// LogNormal fills b with log-normal numbers: exp of normal numbers of the
// given mean and standard deviation (curandGenerateLogNormal,
// curandGenerateLogNormalDouble). For pseudo-random generators b's length
// must be even.
func LogNormal[T Float](g *Generator, b *memory.Buffer[T], mean, stddev T) error {
	const op = "curand.LogNormal"
	return normal(g, op, b, mean, stddev, true)
}

func normal[T Float](g *Generator, op string, b *memory.Buffer[T], mean, stddev T, logn bool) error {
	if err := buffer(g, op, b, true); err != nil || b.Len() == 0 {
		return err
	}
	return g.do(op, func() error {
		p, n := b.Ptr(), uintptr(b.Len())
		switch {
		case isDouble[T]() && logn:
			return g.r.GenerateLogNormalDouble(g.h, p, n, float64(mean), float64(stddev))
		case isDouble[T]():
			return g.r.GenerateNormalDouble(g.h, p, n, float64(mean), float64(stddev))
		case logn:
			return g.r.GenerateLogNormal(g.h, p, n, float32(mean), float32(stddev))
		}
		return g.r.GenerateNormal(g.h, p, n, float32(mean), float32(stddev))
	})
}

// Poisson fills b with Poisson numbers of mean lambda, which is positive
// and at most 400000 (curandGeneratePoisson).
func Poisson(g *Generator, b *memory.Buffer[uint32], lambda float64) error {
	const op = "curand.Poisson"
	if err := buffer(g, op, b, false); err != nil {
		return err
	}
	if !(lambda > 0) || lambda > 400000 {
		return fmt.Errorf("%s: lambda %g outside (0, 400000]: %w", op, lambda, driver.ErrInvalidInput)
	}
	if b.Len() == 0 {
		return nil
	}
	return g.do(op, func() error { return g.r.GeneratePoisson(g.h, b.Ptr(), uintptr(b.Len()), lambda) })
}

// Bits fills b with the generator's raw 32-bit words (curandGenerate). The
// 64-bit Sobol generators give 64-bit words: Bits64.
func Bits(g *Generator, b *memory.Buffer[uint32]) error {
	const op = "curand.Bits"
	if err := buffer(g, op, b, false); err != nil {
		return err
	}
	if g.kind == Sobol64 || g.kind == ScrambledSobol64 {
		return fmt.Errorf("%s: %v gives 64-bit words: use Bits64: %w", op, g.kind, driver.ErrInvalidInput)
	}
	if b.Len() == 0 {
		return nil
	}
	return g.do(op, func() error { return g.r.Generate(g.h, b.Ptr(), uintptr(b.Len())) })
}

// Bits64 fills b with a 64-bit Sobol generator's words (curandGenerateLongLong).
func Bits64(g *Generator, b *memory.Buffer[uint64]) error {
	const op = "curand.Bits64"
	if err := buffer(g, op, b, false); err != nil {
		return err
	}
	if g.kind != Sobol64 && g.kind != ScrambledSobol64 {
		return fmt.Errorf("%s: %v gives 32-bit words: use Bits: %w", op, g.kind, driver.ErrInvalidInput)
	}
	if b.Len() == 0 {
		return nil
	}
	return g.do(op, func() error { return g.r.GenerateLongLong(g.h, b.Ptr(), uintptr(b.Len())) })
}
