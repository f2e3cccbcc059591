package stream

import (
	"fmt"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/core"
)

// Wrap wraps a stream created elsewhere (another library, the CUDA runtime
// API) without taking ownership: Close only detaches, and the stream stays
// alive for its owner, who must keep it alive while this Stream is used.
//
// The handle is checked, never replaced:
//
//   - 0 returns ErrNullHandle; Wrap never creates a stream. Use Default for
//     the NULL stream.
//   - 1 (CU_STREAM_LEGACY) and 2 (CU_STREAM_PER_THREAD) return Legacy(ctx)
//     and PerThread(ctx), the special streams of ctx.
//   - any other handle must belong to ctx: its own context is read with
//     cuStreamGetCtx, and a stream of another context (of another device,
//     say) returns an error wrapping driver.ErrWrongContext that names both. A
//     handle the driver rejects returns the driver's error, wrapped. (A
//     destroyed or made-up handle is undefined behaviour on the real driver,
//     as in C: only pass live streams.)
//
// The handle round-trips exactly (Wrap(ctx, h).Handle() == h) and two wraps
// of one handle are Equal. Nothing about the stream's creation can be set
// here: Flags and Priority read what its creator chose. To give the stream
// a name for reports, use WrapWithOptions.
func Wrap(ctx *driver.Context, handle uintptr) (*Stream, error) {
	return wrap("stream.Wrap", ctx, handle, WrapOptions{})
}

// WrapOptions configure a wrapped stream (WrapWithOptions). The zero value
// is what Wrap does.
type WrapOptions struct {
	// Name is what reports about the stream call it, as Options.Name for
	// a stream of New: the fake's race detector writes `stream "decoder"`
	// where it would write the foreign handle. It names the handle, not
	// this Stream: reports use the latest name given to it, also for work
	// its owner enqueues, until the stream is destroyed. The real driver
	// ignores it. Stream.Name returns it. The special streams (handles 1
	// and 2) cannot be named.
	Name string
}

// WrapWithOptions is Wrap with opts: a stream created elsewhere, checked
// as Wrap checks it, not owned, and named opts.Name.
func WrapWithOptions(ctx *driver.Context, handle uintptr, opts WrapOptions) (*Stream, error) {
	return wrap("stream.WrapWithOptions", ctx, handle, opts)
}

// wrap is Wrap and WrapWithOptions, op being the caller's name.
func wrap(op string, ctx *driver.Context, handle uintptr, opts WrapOptions) (*Stream, error) {
	c, err := core.Of(fmt.Sprintf("%s: handle %#x", op, handle), ctx)
	if err != nil {
		return nil, err
	}
	switch handle {
	case backend.StreamNull:
		return nil, fmt.Errorf("%s: handle 0x0: %w", op, ErrNullHandle)
	case backend.StreamLegacy, backend.StreamPerThread:
		if opts.Name != "" {
			return nil, fmt.Errorf("%s: handle %#x is a special stream, which cannot be named (Name %q): %w", op, handle, opts.Name, driver.ErrInvalidInput)
		}
		return specialStream(op, ctx, handle)
	}
	owner, r := c.API.StreamGetCtx(handle)
	if r != nil {
		return nil, fmt.Errorf("%s: handle %#x: cuStreamGetCtx: %w", op, handle, r)
	}
	if owner != ctx.Handle() {
		return nil, fmt.Errorf("%s: handle %#x belongs to %s, not to %s: %w", op, handle, describeContext(ctx.Driver(), owner), ctx, driver.ErrWrongContext)
	}
	hold, err := c.Hold()
	if err != nil {
		return nil, fmt.Errorf("%s: handle %#x: %w", op, handle, err)
	}
	if opts.Name != "" {
		err = hold.Do(func(api backend.API) error {
			if n, ok := api.(backend.StreamNamer); ok {
				if r := n.NameStream(handle, opts.Name); r != nil {
					return fmt.Errorf("%s: %s: naming stream %#x %q: %w", op, ctx, handle, opts.Name, r)
				}
			}
			return nil
		})
		if err != nil {
			return nil, hold.Drop(err)
		}
	}
	st := newStream(ctx, hold, handle, wrapped)
	st.name = opts.Name
	return st, nil
}

// describeContext names a foreign context handle and, when the driver can
// tell, its device: "context 0x5a0 on device 1". Used on error paths only.
func describeContext(drv *driver.Driver, h uintptr) string {
	if c, err := driver.WrapContext(drv, h); err == nil {
		return fmt.Sprintf("context %#x on device %d", h, c.Device().Ordinal())
	}
	return fmt.Sprintf("context %#x", h)
}
