package memory

import (
	"context"
	"errors"
	"fmt"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/core"
)

// CopyToDeviceContext is CopyToDevice with a Go context.Context (not the
// CUDA context of dst). A synchronous copy first waits for the work queued
// before it on the legacy default stream and the blocking streams of dst's
// context; that wait ends when ctx is done, with an error wrapping ctx.Err(),
// and then nothing has been copied and dst is as it was. Once that work is
// done the copy runs and is not interrupted (it takes what the bus needs for
// len(src) elements).
//
// The wait records an event on the legacy stream and polls it with
// backoff (see stream.Stream.SynchronizeContext); a ctx already done
// returns before any driver call, and a ctx that can never be done
// (context.Background) makes the plain CopyToDevice.
func CopyToDeviceContext[T any](ctx context.Context, dst *Buffer[T], src []T) error {
	const op = "memory.CopyToDeviceContext"
	if err := dst.usable(op, "dst"); err != nil {
		return err
	}
	if len(src) > dst.n {
		return fitError(op, dst.n, len(src))
	}
	if err := awaitLegacy(op, ctx, dst.a.hold, dst.a.ctx, len(src)); err != nil {
		return err
	}
	return copyToDevice(op, dst, src)
}

// CopyToHostContext is CopyToHost with a Go context.Context, as
// CopyToDeviceContext is CopyToDevice: the wait for earlier work ends when
// ctx is done, and then dst has not been written.
func CopyToHostContext[T any](ctx context.Context, dst []T, src *Buffer[T]) error {
	const op = "memory.CopyToHostContext"
	if err := src.usable(op, "src"); err != nil {
		return err
	}
	if src.n > len(dst) {
		return fitError(op, len(dst), src.n)
	}
	if err := awaitLegacy(op, ctx, src.a.hold, src.a.ctx, src.n); err != nil {
		return err
	}
	return copyToHost(op, dst, src)
}

// awaitLegacy waits, until ctx is done, for the work a synchronous copy in
// c would wait for: what is queued on the legacy stream (which waits for
// the blocking streams). Nothing is waited for when n is 0 or ctx can never
// be done.
func awaitLegacy(op string, ctx context.Context, h *core.Hold, c *driver.Context, n int) error {
	if ctx == nil {
		return fmt.Errorf("%s: nil context.Context: %w", op, driver.ErrInvalidInput)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s: %s: %w", op, c, err)
	}
	if n == 0 || ctx.Done() == nil {
		return nil
	}
	var ev uintptr
	err := h.Do(func(api backend.API) error {
		var r error
		if ev, r = api.EventCreate(backend.EventDisableTiming); r != nil {
			return fmt.Errorf("%s: cuEventCreate: %w", c, r)
		}
		if r = api.EventRecord(ev, backend.StreamLegacy); r != nil {
			api.EventDestroy(ev)
			return fmt.Errorf("%s: cuEventRecord(CU_STREAM_LEGACY): %w", c, core.Unusable(r))
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	api := h.Context().API
	err = core.Await(ctx, func() (bool, error) {
		r := api.EventQuery(ev)
		if r == nil {
			return true, nil
		}
		if res, ok := r.(driver.Result); ok && res == driver.ErrNotReady {
			return false, nil
		}
		return false, fmt.Errorf("%s: cuEventQuery: %w", c, core.Unusable(r))
	}, nil)
	// The driver keeps a recorded event until its work is done.
	if r := api.EventDestroy(ev); r != nil && err == nil {
		err = fmt.Errorf("%s: cuEventDestroy: %w", c, r)
	}
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil && errors.Is(err, ctxErr) {
			return fmt.Errorf("%s: %s: %w", op, c, err)
		}
		return fmt.Errorf("%s: %w", op, err)
	}
	return nil
}
