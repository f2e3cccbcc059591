package memory

import (
	"errors"
	"fmt"
	"sync"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/core"
)

// Growable is a device array of T that grows without moving, as PyTorch's
// expandable segments do: [NewGrowable] reserves address space for its
// largest length once ([ReserveAddress]), and [Growable.Grow] maps more physical memory
// ([NewPhysical], [AddressRange.Map], [Mapping.SetAccess] for the context's
// device) behind what is already there, chunk by chunk. Ptr never
// changes, so kernels, graphs and other libraries that captured it stay
// valid, and growing copies nothing.
//
// The caller owns it: Close unmaps and frees everything. It holds its
// context until Close. [Growable.Buffer] returns views of it, which never free
// anything and stop working once it is closed. Methods are safe for
// concurrent use, except Close with other calls; a Grow concurrent with
// work on the memory is fine (the memory already mapped does not change).
type Growable[T any] struct {
	ctx   *driver.Context
	r     *AddressRange
	a     *allocation // kindMapped, the whole range: what the views see
	chunk uintptr
	esize uintptr
	max   int

	mu     sync.Mutex
	maps   []*chunk // in address order, from the range's start
	mapped uintptr  // bytes mapped
	n      int      // Len
}

// GrowableOptions configure NewGrowable. The zero value maps one
// granularity (2 MiB on an H200) at a time.
type GrowableOptions struct {
	// Chunk is how many bytes Grow maps at a time, a multiple of the
	// granularity (0: the granularity). Larger chunks mean fewer driver
	// calls and mappings; each chunk is one cuMemCreate.
	Chunk int
}

// NewGrowable reserves address space for maxLen elements of T in ctx's
// device (rounded up to the granularity) and returns an empty Growable:
// Len 0, no memory mapped. maxLen may exceed the device's memory (only
// address space is reserved); Grow past the memory fails with
// CUDA_ERROR_OUT_OF_MEMORY and leaves the buffer as it was.
func NewGrowable[T any](ctx *driver.Context, maxLen int, opts GrowableOptions) (*Growable[T], error) {
	e := elemOf[T]()
	op := "memory.NewGrowable[" + e.name + "]"
	size, err := e.sizeOf(op, maxLen)
	if err != nil {
		return nil, err
	}
	if maxLen == 0 {
		return nil, fmt.Errorf("%s: maxLen 0: want at least one element: %w", op, driver.ErrInvalidInput)
	}
	g, err := Granularity(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	gran := uintptr(g)
	chunk, err := vmSize("chunk", opts.Chunk, gran, false)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	if chunk == 0 {
		chunk = gran
	}
	if size > ^uintptr(0)-(chunk-1) || int((size+chunk-1)/chunk*chunk) < 0 {
		return nil, fmt.Errorf("%s: maxLen %d: %d bytes overflow the address space: %w", op, maxLen, size, driver.ErrInvalidInput)
	}
	reserve := (size + chunk - 1) / chunk * chunk
	r, err := ReserveAddress(ctx, int(reserve))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	c, err := core.Of(op, ctx)
	if err == nil {
		var h *core.Hold
		if h, err = c.Hold(); err == nil {
			return &Growable[T]{ctx: ctx, r: r, chunk: chunk, esize: e.size, max: maxLen,
				a: &allocation{ctx: ctx, hold: h, kind: kindMapped, base: r.base, size: r.size}}, nil
		}
	}
	return nil, errors.Join(fmt.Errorf("%s: %w", op, err), r.Close())
}

// Ptr returns the device address of the first element (it never changes),
// or 0 once closed.
func (g *Growable[T]) Ptr() uintptr {
	if g == nil || g.a == nil || g.a.freed.Load() {
		return 0
	}
	return g.a.base
}

// Len returns the number of elements the buffer holds.
func (g *Growable[T]) Len() int {
	if g == nil {
		return 0
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.n
}

// Cap returns how many elements fit in the memory mapped so far: Grow up
// to Cap maps nothing.
func (g *Growable[T]) Cap() int {
	if g == nil || g.a == nil {
		return 0
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return min(int(g.mapped/g.esize), g.max)
}

// MaxLen returns the length the buffer can grow to.
func (g *Growable[T]) MaxLen() int {
	if g == nil {
		return 0
	}
	return g.max
}

// Context returns the context the buffer's memory belongs to.
func (g *Growable[T]) Context() *driver.Context {
	if g == nil {
		return nil
	}
	return g.ctx
}

// String describes the buffer, for errors and logs.
func (g *Growable[T]) String() string {
	if g == nil || g.a == nil {
		return "nil growable buffer"
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	s := fmt.Sprintf("growable buffer %#x (%d of at most %d x %d bytes, %d bytes mapped)", g.a.base, g.n, g.max, g.esize, g.mapped)
	if g.a.freed.Load() {
		s = "closed " + s
	}
	return s
}

func (g *Growable[T]) check(op string) error {
	if g == nil || g.a == nil {
		return fmt.Errorf("%s: nil growable buffer: %w", op, driver.ErrInvalidInput)
	}
	if g.a.freed.Load() {
		return fmt.Errorf("%s: growable buffer %#x: %w", op, g.a.base, driver.ErrClosed)
	}
	return nil
}

// Grow makes the buffer n elements long, mapping more memory as needed; n
// below Len leaves it as it is (it never shrinks). The new elements are
// not zeroed. n above MaxLen is an error wrapping driver.ErrInvalidValue,
// before anything is mapped; a failure while mapping (out of memory)
// unmaps what this call mapped and leaves Len as it was.
func (g *Growable[T]) Grow(n int) error {
	const op = "memory.Growable.Grow"
	if err := g.check(op); err != nil {
		return err
	}
	if n < 0 || n > g.max {
		return fmt.Errorf("%s: %s: length %d: want 0 <= n <= MaxLen %d: %w", op, g, n, g.max, driver.ErrInvalidInput)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.a.freed.Load() {
		return fmt.Errorf("%s: growable buffer %#x: %w", op, g.a.base, driver.ErrClosed)
	}
	if n <= g.n {
		return nil
	}
	// Hold the views' allocation open for the call: Close waits.
	if err := g.a.hold.Use(described(g.describeLocked())); err != nil { // not g: its String locks g.mu
		return fmt.Errorf("%s: %w", op, err)
	}
	defer g.a.hold.Unuse()
	need := uintptr(n) * g.esize
	before := len(g.maps)
	for g.mapped < need {
		c, err := g.mapChunk(g.mapped)
		if err != nil {
			for len(g.maps) > before { // undo this call's chunks
				if cerr := g.maps[len(g.maps)-1].close(); cerr != nil {
					err = errors.Join(err, cerr)
					break
				}
				g.maps = g.maps[:len(g.maps)-1]
				g.mapped -= g.chunk
			}
			return fmt.Errorf("%s: %s to %d elements: %w", op, g.describeLocked(), n, err)
		}
		g.maps = append(g.maps, c)
		g.mapped += g.chunk
	}
	g.n = n
	return nil
}

func (g *Growable[T]) describeLocked() string {
	return fmt.Sprintf("growable buffer %#x (%d elements, %d bytes mapped)", g.a.base, g.n, g.mapped)
}

// chunk is one chunk of a Growable: its mapping and its physical memory,
// released after the mapping is closed (nil once released).
type chunk struct {
	m *Mapping
	p *PhysicalMemory // nil once released
}

// close unmaps the chunk and releases its memory if that is still to do;
// it can be retried until it succeeds.
func (c *chunk) close() error {
	if err := c.m.Close(); err != nil || !c.m.a.freed.Load() {
		if err == nil {
			err = fmt.Errorf("mapping %#x did not close", c.m.ptr)
		}
		return err
	}
	if c.p != nil {
		if err := c.p.Close(); err != nil {
			return err
		}
		c.p = nil
	}
	return nil
}

// mapChunk maps one more chunk at offset off of the range, readable and
// writable by the context's device.
func (g *Growable[T]) mapChunk(off uintptr) (*chunk, error) {
	p, err := NewPhysical(g.ctx, int(g.chunk), PhysicalOptions{})
	if err != nil {
		return nil, err
	}
	m, err := g.r.Map(int(off), p, 0, int(g.chunk))
	if err != nil {
		return nil, errors.Join(err, p.Close())
	}
	c := &chunk{m: m, p: p}
	if err := m.SetAccess(g.ctx.Device(), AccessReadWrite); err != nil {
		return nil, errors.Join(err, c.close())
	}
	return c, nil
}

// Buffer returns a view of the buffer's Len elements: a Buffer for copies,
// fills and kernel launches, at Ptr. It never frees anything (its Close
// only detaches it); it stops working once the Growable is closed. It
// does not follow later growth: take a new view after Grow (at the same
// address).
func (g *Growable[T]) Buffer() (*Buffer[T], error) {
	const op = "memory.Growable.Buffer"
	if err := g.check(op); err != nil {
		return nil, err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return viewOf[T](g.a, g.a.base, g.n), nil
}

// Close unmaps all the buffer's memory (cuMemUnmap, which waits for the
// device's work) and frees its address space; its views stop working. A
// second Close is a no-op returning nil. If the driver refuses, the error
// is returned and what is left stays, so that Close can be retried.
func (g *Growable[T]) Close() error {
	const op = "memory.Growable.Close"
	if g == nil || g.a == nil {
		return fmt.Errorf("%s: nil growable buffer: %w", op, driver.ErrInvalidInput)
	}
	if core.InCallback() { // see Mapping.Close
		return fmt.Errorf("%s: growable buffer %#x: %w", op, g.a.base, core.ErrInCallback)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	a := g.a
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.freed.Load() {
		return nil
	}
	desc := g.describeLocked()
	var ferr error
	err := a.hold.Close(func(backend.API) error {
		a.freed.Store(true)
		for len(g.maps) > 0 {
			// A chunk is gone only once its mapping closed: an error that
			// says the context is gone may come from binding it, before
			// anything was unmapped, and the retry must unmap.
			if ferr = g.maps[len(g.maps)-1].close(); ferr != nil {
				a.freed.Store(false)
				return ferr
			}
			g.maps = g.maps[:len(g.maps)-1]
			g.mapped -= g.chunk
		}
		if ferr = g.r.Close(); ferr != nil && !core.Gone(ferr) {
			a.freed.Store(false)
			return ferr
		}
		return ferr
	})
	if a.hold.Closed() {
		a.freed.Store(true)
	}
	return closeWith(a, ferr, err, op, desc)
}
