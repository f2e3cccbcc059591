// The typed kernels, one per arity from 1 to 6, all of one pattern.

package module

import (
	"fmt"
	"reflect"

	"github.com/nocgo/cuda/stream"
)

// Kernel1 is a kernel of 1 parameter launched with Go values of the types A, which the
// compiler checks at each call. NewKernel1 checks the types against the
// kernel's parameters once (count, sizes and, where the PTX gives them,
// types, as Function.Launch does); a Launch then checks no types and
// allocates nothing. A buffer argument (*memory.Buffer[T]) is still
// checked at each launch for being nil, freed or of another context. A
// Kernel1 belongs to its Function's module and is safe for concurrent use.
type Kernel1[A any] struct{ t typed }

// NewKernel1 makes the typed form of f, or returns an error wrapping ErrArgs
// naming the first argument type that does not fit.
func NewKernel1[A any](f *Function) (*Kernel1[A], error) {
	t, err := newTyped("module.NewKernel1", f, reflect.TypeFor[A]())
	if err != nil {
		return nil, err
	}
	return &Kernel1[A]{t}, nil
}

// Function returns the kernel.
func (k *Kernel1[A]) Function() *Function {
	if k == nil {
		return nil
	}
	return k.t.f
}

// Launch enqueues the kernel on s with the shape cfg and the arguments, as
// Function.Launch does.
func (k *Kernel1[A]) Launch(s *stream.Stream, cfg Config, a A) error {
	const op = "module.Kernel1.Launch"
	if k == nil {
		return fmt.Errorf("%s: nil kernel: %w", op, ErrArgs)
	}
	blk, err := k.t.begin(&cfg)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	if err == nil {
		err = set(&k.t, blk, 0, a)
	}
	if err = k.t.end(s, &cfg, blk, err); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	return nil
}

// Kernel2 is a kernel of 2 parameters launched with Go values of the types A, B, which the
// compiler checks at each call. NewKernel2 checks the types against the
// kernel's parameters once (count, sizes and, where the PTX gives them,
// types, as Function.Launch does); a Launch then checks no types and
// allocates nothing. A buffer argument (*memory.Buffer[T]) is still
// checked at each launch for being nil, freed or of another context. A
// Kernel2 belongs to its Function's module and is safe for concurrent use.
type Kernel2[A, B any] struct{ t typed }

// NewKernel2 makes the typed form of f, or returns an error wrapping ErrArgs
// naming the first argument type that does not fit.
func NewKernel2[A, B any](f *Function) (*Kernel2[A, B], error) {
	t, err := newTyped("module.NewKernel2", f, reflect.TypeFor[A](), reflect.TypeFor[B]())
	if err != nil {
		return nil, err
	}
	return &Kernel2[A, B]{t}, nil
}

// Function returns the kernel.
func (k *Kernel2[A, B]) Function() *Function {
	if k == nil {
		return nil
	}
	return k.t.f
}

// Launch enqueues the kernel on s with the shape cfg and the arguments, as
// Function.Launch does.
func (k *Kernel2[A, B]) Launch(s *stream.Stream, cfg Config, a A, b B) error {
	const op = "module.Kernel2.Launch"
	if k == nil {
		return fmt.Errorf("%s: nil kernel: %w", op, ErrArgs)
	}
	blk, err := k.t.begin(&cfg)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	if err == nil {
		err = set(&k.t, blk, 0, a)
	}
	if err == nil {
		err = set(&k.t, blk, 1, b)
	}
	if err = k.t.end(s, &cfg, blk, err); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	return nil
}

// Kernel3 is a kernel of 3 parameters launched with Go values of the types A, B, C, which the
// compiler checks at each call. NewKernel3 checks the types against the
// kernel's parameters once (count, sizes and, where the PTX gives them,
// types, as Function.Launch does); a Launch then checks no types and
// allocates nothing. A buffer argument (*memory.Buffer[T]) is still
// checked at each launch for being nil, freed or of another context. A
// Kernel3 belongs to its Function's module and is safe for concurrent use.
type Kernel3[A, B, C any] struct{ t typed }

// NewKernel3 makes the typed form of f, or returns an error wrapping ErrArgs
// naming the first argument type that does not fit.
func NewKernel3[A, B, C any](f *Function) (*Kernel3[A, B, C], error) {
	t, err := newTyped("module.NewKernel3", f, reflect.TypeFor[A](), reflect.TypeFor[B](), reflect.TypeFor[C]())
	if err != nil {
		return nil, err
	}
	return &Kernel3[A, B, C]{t}, nil
}

// Function returns the kernel.
func (k *Kernel3[A, B, C]) Function() *Function {
	if k == nil {
		return nil
	}
	return k.t.f
}

// Launch enqueues the kernel on s with the shape cfg and the arguments, as
// Function.Launch does.
func (k *Kernel3[A, B, C]) Launch(s *stream.Stream, cfg Config, a A, b B, c C) error {
	const op = "module.Kernel3.Launch"
	if k == nil {
		return fmt.Errorf("%s: nil kernel: %w", op, ErrArgs)
	}
	blk, err := k.t.begin(&cfg)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	if err == nil {
		err = set(&k.t, blk, 0, a)
	}
	if err == nil {
		err = set(&k.t, blk, 1, b)
	}
	if err == nil {
		err = set(&k.t, blk, 2, c)
	}
	if err = k.t.end(s, &cfg, blk, err); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	return nil
}

// Kernel4 is a kernel of 4 parameters launched with Go values of the types A, B, C, D, which the
// compiler checks at each call. NewKernel4 checks the types against the
// kernel's parameters once (count, sizes and, where the PTX gives them,
// types, as Function.Launch does); a Launch then checks no types and
// allocates nothing. A buffer argument (*memory.Buffer[T]) is still
// checked at each launch for being nil, freed or of another context. A
// Kernel4 belongs to its Function's module and is safe for concurrent use.
type Kernel4[A, B, C, D any] struct{ t typed }

// NewKernel4 makes the typed form of f, or returns an error wrapping ErrArgs
// naming the first argument type that does not fit.
func NewKernel4[A, B, C, D any](f *Function) (*Kernel4[A, B, C, D], error) {
	t, err := newTyped("module.NewKernel4", f, reflect.TypeFor[A](), reflect.TypeFor[B](), reflect.TypeFor[C](), reflect.TypeFor[D]())
	if err != nil {
		return nil, err
	}
	return &Kernel4[A, B, C, D]{t}, nil
}

// Function returns the kernel.
func (k *Kernel4[A, B, C, D]) Function() *Function {
	if k == nil {
		return nil
	}
	return k.t.f
}

// Launch enqueues the kernel on s with the shape cfg and the arguments, as
// Function.Launch does.
func (k *Kernel4[A, B, C, D]) Launch(s *stream.Stream, cfg Config, a A, b B, c C, d D) error {
	const op = "module.Kernel4.Launch"
	if k == nil {
		return fmt.Errorf("%s: nil kernel: %w", op, ErrArgs)
	}
	blk, err := k.t.begin(&cfg)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	if err == nil {
		err = set(&k.t, blk, 0, a)
	}
	if err == nil {
		err = set(&k.t, blk, 1, b)
	}
	if err == nil {
		err = set(&k.t, blk, 2, c)
	}
	if err == nil {
		err = set(&k.t, blk, 3, d)
	}
	if err = k.t.end(s, &cfg, blk, err); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	return nil
}

// Kernel5 is a kernel of 5 parameters launched with Go values of the types A, B, C, D, E, which the
// compiler checks at each call. NewKernel5 checks the types against the
// kernel's parameters once (count, sizes and, where the PTX gives them,
// types, as Function.Launch does); a Launch then checks no types and
// allocates nothing. A buffer argument (*memory.Buffer[T]) is still
// checked at each launch for being nil, freed or of another context. A
// Kernel5 belongs to its Function's module and is safe for concurrent use.
type Kernel5[A, B, C, D, E any] struct{ t typed }

// NewKernel5 makes the typed form of f, or returns an error wrapping ErrArgs
// naming the first argument type that does not fit.
func NewKernel5[A, B, C, D, E any](f *Function) (*Kernel5[A, B, C, D, E], error) {
	t, err := newTyped("module.NewKernel5", f, reflect.TypeFor[A](), reflect.TypeFor[B](), reflect.TypeFor[C](), reflect.TypeFor[D](), reflect.TypeFor[E]())
	if err != nil {
		return nil, err
	}
	return &Kernel5[A, B, C, D, E]{t}, nil
}

// Function returns the kernel.
func (k *Kernel5[A, B, C, D, E]) Function() *Function {
	if k == nil {
		return nil
	}
	return k.t.f
}

// Launch enqueues the kernel on s with the shape cfg and the arguments, as
// Function.Launch does.
func (k *Kernel5[A, B, C, D, E]) Launch(s *stream.Stream, cfg Config, a A, b B, c C, d D, e E) error {
	const op = "module.Kernel5.Launch"
	if k == nil {
		return fmt.Errorf("%s: nil kernel: %w", op, ErrArgs)
	}
	blk, err := k.t.begin(&cfg)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	if err == nil {
		err = set(&k.t, blk, 0, a)
	}
	if err == nil {
		err = set(&k.t, blk, 1, b)
	}
	if err == nil {
		err = set(&k.t, blk, 2, c)
	}
	if err == nil {
		err = set(&k.t, blk, 3, d)
	}
	if err == nil {
		err = set(&k.t, blk, 4, e)
	}
	if err = k.t.end(s, &cfg, blk, err); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	return nil
}

// Kernel6 is a kernel of 6 parameters launched with Go values of the types A, B, C, D, E, F, which the
// compiler checks at each call. NewKernel6 checks the types against the
// kernel's parameters once (count, sizes and, where the PTX gives them,
// types, as Function.Launch does); a Launch then checks no types and
// allocates nothing. A buffer argument (*memory.Buffer[T]) is still
// checked at each launch for being nil, freed or of another context. A
// Kernel6 belongs to its Function's module and is safe for concurrent use.
type Kernel6[A, B, C, D, E, F any] struct{ t typed }

// NewKernel6 makes the typed form of f, or returns an error wrapping ErrArgs
// naming the first argument type that does not fit.
func NewKernel6[A, B, C, D, E, F any](f *Function) (*Kernel6[A, B, C, D, E, F], error) {
	t, err := newTyped("module.NewKernel6", f, reflect.TypeFor[A](), reflect.TypeFor[B](), reflect.TypeFor[C](), reflect.TypeFor[D](), reflect.TypeFor[E](), reflect.TypeFor[F]())
	if err != nil {
		return nil, err
	}
	return &Kernel6[A, B, C, D, E, F]{t}, nil
}

// Function returns the kernel.
func (k *Kernel6[A, B, C, D, E, F]) Function() *Function {
	if k == nil {
		return nil
	}
	return k.t.f
}

// Launch enqueues the kernel on s with the shape cfg and the arguments, as
// Function.Launch does.
func (k *Kernel6[A, B, C, D, E, F]) Launch(s *stream.Stream, cfg Config, a A, b B, c C, d D, e E, f F) error {
	const op = "module.Kernel6.Launch"
	if k == nil {
		return fmt.Errorf("%s: nil kernel: %w", op, ErrArgs)
	}
	blk, err := k.t.begin(&cfg)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	if err == nil {
		err = set(&k.t, blk, 0, a)
	}
	if err == nil {
		err = set(&k.t, blk, 1, b)
	}
	if err == nil {
		err = set(&k.t, blk, 2, c)
	}
	if err == nil {
		err = set(&k.t, blk, 3, d)
	}
	if err == nil {
		err = set(&k.t, blk, 4, e)
	}
	if err == nil {
		err = set(&k.t, blk, 5, f)
	}
	if err = k.t.end(s, &cfg, blk, err); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	return nil
}
