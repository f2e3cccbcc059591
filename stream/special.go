package stream

import (
	"fmt"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/core"
)

// Default returns the NULL stream (handle 0x0) of ctx: the context's default
// stream, whose behaviour (legacy or per-thread) depends on how the code
// that issues work was compiled; for driver API calls it is the legacy
// stream. It is never destroyed: Close only detaches this Stream value
// and lets go of its context.
// Every operation on it binds ctx, since the driver resolves the handle
// through the current context.
func Default(ctx *driver.Context) (*Stream, error) {
	return specialStream("stream.Default", ctx, backend.StreamNull)
}

// Legacy returns the legacy default stream (CU_STREAM_LEGACY, 0x1) of ctx,
// which synchronizes with every blocking stream of the context. It is never
// destroyed: Close only detaches this Stream value
// and lets go of its context. Every operation on it
// binds ctx.
func Legacy(ctx *driver.Context) (*Stream, error) {
	return specialStream("stream.Legacy", ctx, backend.StreamLegacy)
}

// PerThread returns the per-thread default stream (CU_STREAM_PER_THREAD,
// 0x2) of ctx. The driver keeps one such stream per OS thread, and Go moves
// goroutines between threads: work queued from different calls may land on
// different per-thread streams, so order it with events (or use New). It is
// never destroyed: Close only detaches this Stream value
// and lets go of its context. Every operation on
// it binds ctx.
func PerThread(ctx *driver.Context) (*Stream, error) {
	return specialStream("stream.PerThread", ctx, backend.StreamPerThread)
}

// specialStream returns the special stream h of ctx for op.
func specialStream(op string, ctx *driver.Context, h uintptr) (*Stream, error) {
	c, err := core.Of(op, ctx)
	if err != nil {
		return nil, err
	}
	hold, err := c.Hold()
	if err != nil {
		return nil, fmt.Errorf("%s: special stream %#x: %w", op, h, err)
	}
	return newStream(ctx, hold, h, special), nil
}
