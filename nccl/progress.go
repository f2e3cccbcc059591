package nccl

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/internal/core"
)

// A non-blocking communicator (Config.NonBlocking) is handed out while
// NCCL still makes it: NewComm returns at once, NCCL's own thread meets the
// other ranks, and ncclCommGetAsyncError says ncclInProgress until it is
// done. NCCL forbids any other call on it meanwhile; this package waits
// for it first (Wait, or the first call that needs it), by polling, so
// that Abort from another goroutine can end a communicator whose peers
// never come. Polls and the destroying call are serialised (pollMu), so
// that NCCL is never asked about a communicator it freed.

// Wait waits until the communicator is ready, or until ctx is done. It is
// how a non-blocking communicator (Config.NonBlocking) is waited for: nil
// once NCCL has made it (every rank joined, or a Split completed), NCCL's
// error when making it failed (after which only Abort or Close is of use),
// and an error wrapping ctx.Err() when ctx ends first: the communicator is
// left as it was, still in progress, for a later Wait or for Abort. For a
// blocking communicator, which is ready once made, it returns nil at once
// (or the asynchronous error, as AsyncError does).
//
// Wait polls ncclCommGetAsyncError (back to back at first, then with
// sleeps up to 500µs) and starts no goroutine. An Abort or Close from
// another goroutine ends it with an error wrapping driver.ErrClosed.
func (c *Comm) Wait(ctx context.Context) error {
	const op = "nccl.Comm.Wait"
	if ctx == nil {
		return fmt.Errorf("%s: nil context.Context: %w", op, driver.ErrInvalidInput)
	}
	if err := c.check(op); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s: %s: %w", op, c, err)
	}
	if err := c.awaitContext(ctx); err != nil {
		return fmt.Errorf("%s: %s: %w", op, c, err)
	}
	return nil
}

// ready waits for a non-blocking communicator that NewComm handed out in
// progress, before a call that needs it made. Abort ends the wait.
func (c *Comm) ready() error {
	if !c.pending.Load() {
		return nil
	}
	return c.await()
}

// await waits while the communicator is busy in non-blocking mode.
func (c *Comm) await() error { return c.awaitContext(context.Background()) }

// awaitContext polls the communicator's state until NCCL is done with it or
// ctx is done: nil when ready, NCCL's asynchronous error, an error wrapping
// driver.ErrClosed once it was aborted or closed, or ctx.Err().
func (c *Comm) awaitContext(ctx context.Context) error {
	err := core.Await(ctx, func() (bool, error) {
		async, err := c.poll()
		if err != nil {
			return false, err
		}
		if errors.Is(async, InProgress) {
			return false, nil
		}
		return true, async
	}, nil)
	if err == nil {
		c.pending.Store(false)
	}
	return err
}

// poll is ncclCommGetAsyncError, refused once the communicator was ended.
// A communicator split in a Group with a non-blocking configuration is in
// progress as long as its parent's split is; its handle is read once the
// parent says the split is done.
func (c *Comm) poll() (async, err error) {
	c.pollMu.Lock()
	defer c.pollMu.Unlock()
	if c.ended {
		return nil, fmt.Errorf("aborted or closed while waiting: %w", driver.ErrClosed)
	}
	if c.parent == nil {
		return c.n.CommGetAsyncError(c.h)
	}
	if c.polled == 0 {
		async, err = c.parent.poll()
		if err != nil || async != nil {
			return async, err // in progress, or the split failed
		}
		// Done: NCCL wrote the handle before saying so.
		if c.polled = *c.slot; c.polled == 0 {
			return nil, fmt.Errorf("the split completed but NCCL made no communicator: %w", InvalidUsage)
		}
	}
	return c.n.CommGetAsyncError(c.polled)
}

// splitHandleWait bounds how long awaitSplit waits for NCCL to write the
// handle of a split whose parent says it is done.
const splitHandleWait = 30 * time.Second

// awaitSplit waits, after a split outside a Group that returned with the
// new communicator's handle not yet written, for NCCL to write it and for
// that communicator to be made (the split goes on in NCCL's own thread).
func (c *Comm) awaitSplit() error {
	ctx, cancel := context.WithTimeout(context.Background(), splitHandleWait)
	defer cancel()
	err := core.Await(ctx, func() (bool, error) { return atomic.LoadUintptr(c.slot) != 0, nil }, nil)
	if err != nil {
		return fmt.Errorf("NCCL wrote no communicator within %v of the split: %w", splitHandleWait, InvalidUsage)
	}
	c.h = atomic.LoadUintptr(c.slot)
	return c.await()
}
