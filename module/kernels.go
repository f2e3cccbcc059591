// The typed kernels, one per arity from 1 to 6: each is a typedKernel (the
// state and the launch they share) seen through the Go types of its
// arguments.

package module

import (
	"fmt"
	"reflect"

	"github.com/nocgo/cuda/stream"
)

// typedKernel is the state of every KernelN: a *KernelN converts to a
// *typedKernel and back (both are struct{ t typed }), nil staying nil.
type typedKernel struct{ t typed }

// newKernel is NewKernelN (op): the kernel of f with argument types ts.
func newKernel(op string, f *Function, ts ...reflect.Type) (*typedKernel, error) {
	t, err := newTyped(op, f, ts...)
	if err != nil {
		return nil, err
	}
	return &typedKernel{t}, nil
}

// function is KernelN.Function.
func (k *typedKernel) function() *Function {
	if k == nil {
		return nil
	}
	return k.t.f
}

// begin starts a Launch: the state and a block to set the arguments in, or
// the error (and nil for both).
func (k *typedKernel) begin(cfg *Config) (*typed, *block, error) {
	if k == nil {
		return nil, nil, fmt.Errorf("nil kernel: %w", ErrArgs)
	}
	blk, err := k.t.begin(cfg)
	if err != nil {
		return nil, nil, err
	}
	return &k.t, blk, nil
}

// setArg sets argument i of the launch to v, unless err (the launch's first
// failure) is set: it returns the launch's first failure.
func setArg[T any](t *typed, blk *block, i int, v T, err error) error {
	if err != nil {
		return err
	}
	return set(t, blk, i, v)
}

// finish ends a Launch (op) that begin started: it launches the kernel
// unless err (the first failure) is set, gives the block back, and wraps
// the failure.
func finish(op string, t *typed, s *stream.Stream, cfg *Config, blk *block, err error) error {
	if blk != nil {
		err = t.end(s, cfg, blk, err)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	return nil
}

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
	k, err := newKernel("module.NewKernel1", f, reflect.TypeFor[A]())
	return (*Kernel1[A])(k), err
}

// Function returns the kernel.
func (k *Kernel1[A]) Function() *Function { return (*typedKernel)(k).function() }

// Launch enqueues the kernel on s with the shape cfg and the arguments, as
// Function.Launch does.
func (k *Kernel1[A]) Launch(s *stream.Stream, cfg Config, a A) error {
	t, blk, err := (*typedKernel)(k).begin(&cfg)
	err = setArg(t, blk, 0, a, err)
	return finish("module.Kernel1.Launch", t, s, &cfg, blk, err)
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
	k, err := newKernel("module.NewKernel2", f, reflect.TypeFor[A](), reflect.TypeFor[B]())
	return (*Kernel2[A, B])(k), err
}

// Function returns the kernel.
func (k *Kernel2[A, B]) Function() *Function { return (*typedKernel)(k).function() }

// Launch enqueues the kernel on s with the shape cfg and the arguments, as
// Function.Launch does.
func (k *Kernel2[A, B]) Launch(s *stream.Stream, cfg Config, a A, b B) error {
	t, blk, err := (*typedKernel)(k).begin(&cfg)
	err = setArg(t, blk, 0, a, err)
	err = setArg(t, blk, 1, b, err)
	return finish("module.Kernel2.Launch", t, s, &cfg, blk, err)
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
	k, err := newKernel("module.NewKernel3", f, reflect.TypeFor[A](), reflect.TypeFor[B](), reflect.TypeFor[C]())
	return (*Kernel3[A, B, C])(k), err
}

// Function returns the kernel.
func (k *Kernel3[A, B, C]) Function() *Function { return (*typedKernel)(k).function() }

// Launch enqueues the kernel on s with the shape cfg and the arguments, as
// Function.Launch does.
func (k *Kernel3[A, B, C]) Launch(s *stream.Stream, cfg Config, a A, b B, c C) error {
	t, blk, err := (*typedKernel)(k).begin(&cfg)
	err = setArg(t, blk, 0, a, err)
	err = setArg(t, blk, 1, b, err)
	err = setArg(t, blk, 2, c, err)
	return finish("module.Kernel3.Launch", t, s, &cfg, blk, err)
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
	k, err := newKernel("module.NewKernel4", f, reflect.TypeFor[A](), reflect.TypeFor[B](), reflect.TypeFor[C](), reflect.TypeFor[D]())
	return (*Kernel4[A, B, C, D])(k), err
}

// Function returns the kernel.
func (k *Kernel4[A, B, C, D]) Function() *Function { return (*typedKernel)(k).function() }

// Launch enqueues the kernel on s with the shape cfg and the arguments, as
// Function.Launch does.
func (k *Kernel4[A, B, C, D]) Launch(s *stream.Stream, cfg Config, a A, b B, c C, d D) error {
	t, blk, err := (*typedKernel)(k).begin(&cfg)
	err = setArg(t, blk, 0, a, err)
	err = setArg(t, blk, 1, b, err)
	err = setArg(t, blk, 2, c, err)
	err = setArg(t, blk, 3, d, err)
	return finish("module.Kernel4.Launch", t, s, &cfg, blk, err)
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
	k, err := newKernel("module.NewKernel5", f, reflect.TypeFor[A](), reflect.TypeFor[B](), reflect.TypeFor[C](), reflect.TypeFor[D](), reflect.TypeFor[E]())
	return (*Kernel5[A, B, C, D, E])(k), err
}

// Function returns the kernel.
func (k *Kernel5[A, B, C, D, E]) Function() *Function { return (*typedKernel)(k).function() }

// Launch enqueues the kernel on s with the shape cfg and the arguments, as
// Function.Launch does.
func (k *Kernel5[A, B, C, D, E]) Launch(s *stream.Stream, cfg Config, a A, b B, c C, d D, e E) error {
	t, blk, err := (*typedKernel)(k).begin(&cfg)
	err = setArg(t, blk, 0, a, err)
	err = setArg(t, blk, 1, b, err)
	err = setArg(t, blk, 2, c, err)
	err = setArg(t, blk, 3, d, err)
	err = setArg(t, blk, 4, e, err)
	return finish("module.Kernel5.Launch", t, s, &cfg, blk, err)
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
	k, err := newKernel("module.NewKernel6", f, reflect.TypeFor[A](), reflect.TypeFor[B](), reflect.TypeFor[C](), reflect.TypeFor[D](), reflect.TypeFor[E](), reflect.TypeFor[F]())
	return (*Kernel6[A, B, C, D, E, F])(k), err
}

// Function returns the kernel.
func (k *Kernel6[A, B, C, D, E, F]) Function() *Function { return (*typedKernel)(k).function() }

// Launch enqueues the kernel on s with the shape cfg and the arguments, as
// Function.Launch does.
func (k *Kernel6[A, B, C, D, E, F]) Launch(s *stream.Stream, cfg Config, a A, b B, c C, d D, e E, f F) error {
	t, blk, err := (*typedKernel)(k).begin(&cfg)
	err = setArg(t, blk, 0, a, err)
	err = setArg(t, blk, 1, b, err)
	err = setArg(t, blk, 2, c, err)
	err = setArg(t, blk, 3, d, err)
	err = setArg(t, blk, 4, e, err)
	err = setArg(t, blk, 5, f, err)
	return finish("module.Kernel6.Launch", t, s, &cfg, blk, err)
}
