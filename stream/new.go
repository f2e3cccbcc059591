package stream

import (
	"fmt"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/core"
)

// Flag is a stream creation flag (CU_STREAM_*).
type Flag uint32

const (
	// Blocking is the default: the stream synchronizes with the legacy NULL
	// stream (CU_STREAM_DEFAULT).
	Blocking Flag = Flag(backend.StreamDefault)
	// NonBlocking streams do not synchronize with the legacy NULL stream
	// (CU_STREAM_NON_BLOCKING).
	NonBlocking Flag = Flag(backend.StreamNonBlocking)
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

// Options configure a new stream. The zero value is a blocking stream of
// the default (least) priority.
type Options struct {
	// Flags is Blocking (the default) or NonBlocking.
	Flags Flag
	// Priority is the stream's priority: 0, the default, is the least;
	// lower numbers are greater, down to the greatest that PriorityRange
	// reports. A priority outside the range is an error (the driver would
	// clamp it silently).
	Priority int
	// Name is what reports about the stream call it: the fake's race
	// detector writes `stream "loader"` for Name "loader", where it would
	// write the stream's handle. The real driver ignores it. Stream.Name
	// returns it.
	Name string
}

// New creates a stream in ctx (cuStreamCreateWithPriority) with opts. The
// caller owns it: Close destroys it.
func New(ctx *driver.Context, opts Options) (*Stream, error) {
	c, err := core.Of("stream.New", ctx)
	if err != nil {
		return nil, err
	}
	if opts.Flags != Blocking && opts.Flags != NonBlocking {
		return nil, fmt.Errorf("stream.New: flags %#x: want stream.Blocking or stream.NonBlocking: %w", uint32(opts.Flags), driver.ErrInvalidInput)
	}
	hold, err := c.Hold()
	if err != nil {
		return nil, fmt.Errorf("stream.New: %w", err)
	}
	var h uintptr
	err = hold.Do(func(api backend.API) error {
		if opts.Priority != 0 {
			least, greatest, r := api.CtxGetStreamPriorityRange()
			if r != nil {
				return fmt.Errorf("stream.New: %s: cuCtxGetStreamPriorityRange: %w", ctx, r)
			}
			if opts.Priority < greatest || opts.Priority > least {
				return fmt.Errorf("stream.New: priority %d is out of the range of %s: %d (greatest) to %d (least): %w",
					opts.Priority, ctx, greatest, least, driver.ErrInvalidInput)
			}
		}
		var r error
		h, r = api.StreamCreateWithPriority(uint32(opts.Flags), opts.Priority)
		if r != nil {
			return fmt.Errorf("stream.New: %s: cuStreamCreateWithPriority(%s, %d): %w", ctx, opts.Flags, opts.Priority, r)
		}
		if n, ok := api.(backend.StreamNamer); ok && opts.Name != "" {
			if r := n.NameStream(h, opts.Name); r != nil {
				return fmt.Errorf("stream.New: %s: naming stream %#x %q: %w", ctx, h, opts.Name, r)
			}
		}
		return nil
	})
	if err != nil {
		if h != 0 { // made, but unbinding failed
			err = hold.Undo(err, func(api backend.API) error { return api.StreamDestroy(h) })
		}
		return nil, hold.Drop(err)
	}
	st := newStream(ctx, hold, h, owned)
	st.name = opts.Name
	return st, nil
}

// PriorityRange returns the stream priorities ctx allows
// (cuCtxGetStreamPriorityRange): least is the lowest priority (numerically
// the largest, usually 0) and greatest the highest (numerically the
// smallest, such as -5).
func PriorityRange(ctx *driver.Context) (least, greatest int, err error) {
	c, err := core.Of("stream.PriorityRange", ctx)
	if err != nil {
		return 0, 0, err
	}
	err = c.Do(func(api backend.API) error {
		var r error
		if least, greatest, r = api.CtxGetStreamPriorityRange(); r != nil {
			return fmt.Errorf("stream.PriorityRange: %s: cuCtxGetStreamPriorityRange: %w", ctx, r)
		}
		return nil
	})
	return least, greatest, err
}
