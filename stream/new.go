package stream

import (
	"fmt"

	"github.com/nocgo/cuda/driver"
)

// Flag is a stream creation flag (CU_STREAM_*).
type Flag uint32

const (
	// Blocking is the default: the stream synchronizes with the legacy NULL
	// stream (CU_STREAM_DEFAULT).
	Blocking Flag = Flag(driver.StreamDefault)
	// NonBlocking streams do not synchronize with the legacy NULL stream
	// (CU_STREAM_NON_BLOCKING).
	NonBlocking Flag = Flag(driver.StreamNonBlocking)
)

// String names the flag ("Blocking", "NonBlocking").
func (f Flag) String() string {
	switch f {
	case Blocking:
		return "Blocking"
	case NonBlocking:
		return "NonBlocking"
	}
	return fmt.Sprintf("Flag(%#x)", uint32(f))
}

// Option configures New.
type Option func(*options)

type options struct {
	flags       Flag
	priority    int
	hasPriority bool
}

// WithFlags sets the creation flags of a new stream (Blocking, the default,
// or NonBlocking).
func WithFlags(f Flag) Option { return func(o *options) { o.flags = f } }

// WithPriority sets the priority of a new stream. Lower numbers are higher
// priorities; p must lie in the context's range (see PriorityRange), or New
// fails with an error naming the range. Without it, a stream gets the
// default priority (0, the least).
func WithPriority(p int) Option {
	return func(o *options) { o.priority, o.hasPriority = p, true }
}

// New creates a stream in ctx (cuStreamCreateWithPriority). The caller owns
// it: Close destroys it. The stream holds ctx (driver.Context.Hold) until
// Close, so it keeps working after ctx.Release, which then ends the context
// only when the stream (and every other object holding it) is closed.
func New(ctx *driver.Context, opts ...Option) (*Stream, error) {
	if ctx == nil {
		return nil, fmt.Errorf("stream.New: nil context: %w", driver.ErrInvalidValue)
	}
	var o options
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	if o.flags != Blocking && o.flags != NonBlocking {
		return nil, fmt.Errorf("stream.New: flags %#x: want stream.Blocking or stream.NonBlocking: %w", uint32(o.flags), driver.ErrInvalidValue)
	}
	hold, err := ctx.Hold()
	if err != nil {
		return nil, fmt.Errorf("stream.New: %w", err)
	}
	h, err := createStream(ctx, hold, o)
	if err != nil {
		return nil, dropHold(hold, err)
	}
	return &Stream{ctx: ctx, hold: hold, h: h, kind: owned}, nil
}

// createStream checks the priority and creates the stream with ctx bound
// through hold; it unbinds before returning, so that a failure may release
// the Hold.
func createStream(ctx *driver.Context, hold *driver.Hold, o options) (uintptr, error) {
	b, err := hold.Bind()
	if err != nil {
		return 0, fmt.Errorf("stream.New: %w", err)
	}
	defer b.Unbind()
	api := ctx.API()
	if o.hasPriority {
		least, greatest, r := api.CtxGetStreamPriorityRange()
		if r != nil {
			return 0, fmt.Errorf("stream.New: %s: cuCtxGetStreamPriorityRange: %w", ctx, r)
		}
		if o.priority < greatest || o.priority > least {
			return 0, fmt.Errorf("stream.New: priority %d is out of the range of %s: %d (greatest) to %d (least): %w",
				o.priority, ctx, greatest, least, driver.ErrInvalidValue)
		}
	}
	h, r := api.StreamCreateWithPriority(uint32(o.flags), o.priority)
	if r != nil {
		return 0, fmt.Errorf("stream.New: %s: cuStreamCreateWithPriority(%s, %d): %w", ctx, o.flags, o.priority, r)
	}
	return h, nil
}

// PriorityRange returns the stream priorities ctx allows
// (cuCtxGetStreamPriorityRange): least is the lowest priority (numerically
// the largest, usually 0) and greatest the highest (numerically the
// smallest, such as -5).
func PriorityRange(ctx *driver.Context) (least, greatest int, err error) {
	if ctx == nil {
		return 0, 0, fmt.Errorf("stream.PriorityRange: nil context: %w", driver.ErrInvalidValue)
	}
	b, err := ctx.Bind()
	if err != nil {
		return 0, 0, fmt.Errorf("stream.PriorityRange: %w", err)
	}
	defer b.Unbind()
	least, greatest, r := ctx.API().CtxGetStreamPriorityRange()
	if r != nil {
		return 0, 0, fmt.Errorf("stream.PriorityRange: %s: cuCtxGetStreamPriorityRange: %w", ctx, r)
	}
	return least, greatest, nil
}
