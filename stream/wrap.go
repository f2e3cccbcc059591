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
// here: Flags and Priority read what its creator chose.
func Wrap(ctx *driver.Context, handle uintptr) (*Stream, error) {
	c, err := core.Of(fmt.Sprintf("stream.Wrap: handle %#x", handle), ctx)
	if err != nil {
		return nil, err
	}
	switch handle {
	case backend.StreamNull:
		return nil, fmt.Errorf("stream.Wrap: handle 0x0: %w", ErrNullHandle)
	case backend.StreamLegacy, backend.StreamPerThread:
		return specialStream("stream.Wrap", ctx, handle)
	}
	owner, r := c.API.StreamGetCtx(handle)
	if r != nil {
		return nil, fmt.Errorf("stream.Wrap: handle %#x: cuStreamGetCtx: %w", handle, r)
	}
	if owner != ctx.Handle() {
		return nil, fmt.Errorf("stream.Wrap: handle %#x belongs to %s, not to %s: %w", handle, describeContext(ctx.Driver(), owner), ctx, driver.ErrWrongContext)
	}
	hold, err := c.Hold()
	if err != nil {
		return nil, fmt.Errorf("stream.Wrap: handle %#x: %w", handle, err)
	}
	return newStream(ctx, hold, handle, wrapped), nil
}

// describeContext names a foreign context handle and, when the driver can
// tell, its device: "context 0x5a0 on device 1". Used on error paths only.
func describeContext(drv *driver.Driver, h uintptr) string {
	if c, err := driver.WrapContext(drv, h); err == nil {
		return fmt.Sprintf("context %#x on device %d", h, c.Device().Ordinal())
	}
	return fmt.Sprintf("context %#x", h)
}
