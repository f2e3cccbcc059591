package module

import (
	"fmt"
	"github.com/nocgo/cuda/driver"
	"reflect"
	"unsafe"

	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/stream"
)

// typed is what a typed kernel (Kernel1 ... Kernel6) knows: its function,
// the layout its argument types were checked against once, and which
// arguments are device buffers.
type typed struct {
	f    *Function
	lay  *layout
	bufs uint32 // bit i: argument i is a *memory.Buffer[T]
}

// newTyped checks the Go types ts of a typed kernel's arguments against
// f's parameters, once: count, size and, where the PTX gives them, types
// (the rules of Function.Launch). The types must be numbers, bools,
// *memory.Buffer[T], or structs and arrays of numbers.
func newTyped(op string, f *Function, ts ...reflect.Type) (typed, error) {
	if err := f.check(); err != nil {
		return typed{}, fmt.Errorf("%s: %w", op, err)
	}
	lay, err := f.layout()
	if err != nil {
		return typed{}, fmt.Errorf("%s: %w", op, err)
	}
	if err := f.checkCount(lay, len(ts)); err != nil {
		return typed{}, fmt.Errorf("%s: %w", op, err)
	}
	k := typed{f: f, lay: lay}
	for i, t := range ts {
		a := kindOf(t)
		switch a.kind {
		case argRefused:
			return typed{}, fmt.Errorf("%s: %w", op, f.argErr(lay, i, fmt.Sprintf("is %s, %s", withArticle(t.String()), a.why)))
		case argBuffer:
			k.bufs |= 1 << i
		}
		p := &lay.params[i]
		switch {
		case p.typ != "" && (a.size != p.size || !p.accepts(a.class, a.align)):
			return typed{}, fmt.Errorf("%s: %w", op, f.typeErr(lay, i, t))
		case a.size != p.size:
			return typed{}, fmt.Errorf("%s: %w", op, f.sizeErr(lay, i, t))
		}
	}
	return k, nil
}

// set stores argument i, v, in the block: its value, or for a buffer its
// device address (a nil or closed buffer, or one of another context, is
// refused: the types were checked when the kernel was made, the buffer's
// state is checked now).
func set[T any](k *typed, blk *block, i int, v T) error {
	dst := unsafe.Add(blk.base(), k.lay.params[i].offset)
	blk.ptrs[i] = dst
	if k.bufs&(1<<i) == 0 {
		*(*T)(dst) = v
		return nil
	}
	// T is a *memory.Buffer[E]: every Buffer has Buffer[byte]'s layout
	// (see bufferOf), and the methods called read no E.
	b := *(**memory.Buffer[byte])(unsafe.Pointer(&v))
	if b == nil {
		return k.f.argErr(k.lay, i, fmt.Sprintf("is a nil %s", reflect.TypeFor[T]()))
	}
	if b.Closed() {
		return fmt.Errorf("%w: %w", k.f.argErr(k.lay, i, fmt.Sprintf("is a closed %s", reflect.TypeFor[T]())), driver.ErrClosed)
	}
	if err := k.f.checkContext(k.lay, i, reflect.TypeFor[T](), b.Context()); err != nil {
		return err
	}
	*(*uintptr)(dst) = b.Ptr()
	return nil
}

// begin checks the kernel and the configuration and takes a block.
func (k *typed) begin(cfg *Config) (*block, error) {
	if k.f == nil {
		return nil, fmt.Errorf("zero typed kernel: %w", ErrArgs)
	}
	if err := k.f.check(); err != nil {
		return nil, err
	}
	if err := cfg.checkLaunch(k.f); err != nil {
		return nil, err
	}
	return k.f.takeBlock(k.lay), nil
}

// end launches the block (err: the arguments' error, if any) and gives it
// back.
func (k *typed) end(s *stream.Stream, cfg *Config, blk *block, err error) error {
	if err == nil {
		var params unsafe.Pointer
		if len(k.lay.params) > 0 {
			params = unsafe.Pointer(&blk.ptrs[0])
		}
		err = k.f.launch(s, cfg, params)
	}
	k.f.giveBlock(blk, k.lay)
	return err
}
