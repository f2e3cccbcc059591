package driver

import (
	"context"
	"fmt"

	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/core"
)

// SynchronizeContext is Synchronize with a Go context.Context (ctx, not to
// be confused with c, the CUDA context): it blocks until all work in c is
// done or ctx is done, whichever comes first, and in the second case
// returns an error wrapping ctx.Err() (context.Canceled or
// context.DeadlineExceeded). The GPU work is not stopped and nothing is
// undone: only the caller stops waiting, and c stays usable.
//
// A ctx already done returns at once, before any driver call; a ctx that
// can never be done (context.Background) makes the plain blocking call.
// Otherwise, because the driver has no query for a whole context (as
// cuStreamQuery is for a stream), the blocking cuCtxSynchronize runs on a
// goroutine of its own, which holds c (see Context) until the driver
// returns, even after the caller stopped waiting. To wait without a
// goroutine, wait for the streams instead (stream.Stream.SynchronizeContext
// polls).
func (c *Context) SynchronizeContext(ctx context.Context) error {
	const op = "driver.Context.SynchronizeContext"
	if c.state() == nil {
		return nilContext(op)
	}
	if ctx == nil {
		return fmt.Errorf("%s: %s: nil context.Context: %w", op, c, ErrInvalidValue)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s: %s: %w", op, c, err)
	}
	if ctx.Done() == nil {
		if err := c.synchronize(); err != nil {
			return fmt.Errorf("%s: %w", op, err)
		}
		return nil
	}
	h, err := c.state().Hold()
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	done := make(chan error, 1)
	go func() {
		err := h.Do(func(api backend.API) error {
			if r := api.CtxSynchronize(); r != nil {
				return fmt.Errorf("%s: cuCtxSynchronize: %w", c, core.Unusable(r))
			}
			return nil
		})
		done <- h.Drop(err)
	}()
	select {
	case err := <-done:
		if err != nil {
			return fmt.Errorf("%s: %w", op, err)
		}
		return nil
	case <-ctx.Done():
		return fmt.Errorf("%s: %s: %w", op, c, ctx.Err())
	}
}

// synchronize is Synchronize's call, its error prefixed by no operation.
func (c *Context) synchronize() error {
	b, err := c.state().Bind()
	if err != nil {
		return err
	}
	r := c.state().API.CtxSynchronize()
	if err := b.Unbind(); err != nil && r == nil {
		return err
	}
	if r != nil {
		return fmt.Errorf("%s: cuCtxSynchronize: %w", c, core.Unusable(r))
	}
	return nil
}

// MemInfo returns the free and total memory, in bytes, of the context's
// device as the driver sees it (cuMemGetInfo). Free memory is shared with
// every other user of the device, in this process and others, and changes
// at any time; memory cached by memory pools (see memory.Pool) counts as
// used.
func (c *Context) MemInfo() (free, total uint64, err error) {
	const op = "driver.Context.MemInfo"
	if c.state() == nil {
		return 0, 0, nilContext(op)
	}
	err = c.state().Do(func(api backend.API) error {
		var r error
		if free, total, r = api.MemGetInfo(); r != nil {
			return fmt.Errorf("%s: cuMemGetInfo: %w", c, r)
		}
		return nil
	})
	if err != nil {
		return 0, 0, fmt.Errorf("%s: %w", op, err)
	}
	return free, total, nil
}
