package cufft

import (
	"fmt"
	"math"
	"sync"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/core"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/stream"
)

// Type is a transform's type (cufftType).
type Type int

// The transform types.
const (
	C2C Type = Type(backend.FFTC2C) // complex64 to complex64
	Z2Z Type = Type(backend.FFTZ2Z) // complex128 to complex128
	R2C Type = Type(backend.FFTR2C) // float32 to complex64, forward
	D2Z Type = Type(backend.FFTD2Z) // float64 to complex128, forward
	C2R Type = Type(backend.FFTC2R) // complex64 to float32, inverse
	Z2D Type = Type(backend.FFTZ2D) // complex128 to float64, inverse
)

// String returns "C2C" and the like.
func (t Type) String() string {
	s := backend.FFTType(t).String()
	if len(s) > 6 && s[:6] == "CUFFT_" {
		return s[6:]
	}
	return s
}

// Direction is a complex transform's direction.
type Direction int

// The directions.
const (
	Forward Direction = Direction(backend.FFTForward) // exp(-2πi·jk/n)
	Inverse Direction = Direction(backend.FFTInverse) // exp(+2πi·jk/n), not normalised
)

// Layout is one side of a plan in cuFFT's advanced data layout: element
// (i0, i1, i2) of batch b is at b·Dist + Stride·((i0·Embed[1] + i1)·Embed[2]
// + i2). Embed has one size per axis, each at least the transform's on
// that axis (Embed[0] is not used).
type Layout struct {
	Embed  []int
	Stride int
	Dist   int
}

// Many is a plan of cufftMakePlanMany: Batch transforms of sizes N
// (slowest-varying first, 1 to 3 axes) of type Type. In and Out are the
// advanced layout of the input and output, both nil for the basic layout
// (contiguous transforms one after another).
type Many struct {
	N       []int
	Type    Type
	Batch   int
	In, Out *Layout
	// ManualWorkArea turns cuFFT's own work area off: the caller gives
	// one of WorkSize bytes with SetWorkArea before executing.
	ManualWorkArea bool
}

// Plan is a cuFFT plan (cufftHandle) in one context, bound to a stream of
// it. It is owned: Close destroys it; a second Close is nil, and every
// other method after Close returns an error wrapping driver.ErrClosed. It
// holds its context until Close. Methods are safe for concurrent use.
type Plan struct {
	f    backend.CUFFT
	hold *core.Hold
	h    uintptr
	m    Many
	ws   int
	in   side
	out  side

	mu   sync.Mutex
	s    *stream.Stream
	work *memory.Buffer[byte]
}

// side is one side's layout in elements.
type side struct {
	dims         []int64
	embed        []int64
	stride, dist int64
}

// extent is the elements a side spans: one past its largest offset. A
// layout checked by Many.check spans at most maxSpan elements.
func (sd side) extent(batch int64) int64 {
	n, _ := sd.span(batch)
	return n
}

// maxSpan bounds the elements a layout may span: its bytes (16 an element
// at most) then fit an int64.
const maxSpan = math.MaxInt64 / 16

// span is extent, and false when a step of it would exceed maxSpan (huge
// strides, distances or embeddings that would wrap).
func (sd side) span(batch int64) (int64, bool) {
	var k int64
	ok := true
	for i, d := range sd.dims {
		if i > 0 {
			k = mulSpan(k, sd.embed[i], &ok)
		}
		k = addSpan(k, d-1, &ok)
	}
	n := addSpan(addSpan(mulSpan(batch-1, sd.dist, &ok), mulSpan(sd.stride, k, &ok), &ok), 1, &ok)
	return n, ok
}

// mulSpan returns a*b for a, b >= 0, clearing *ok when it exceeds maxSpan.
func mulSpan(a, b int64, ok *bool) int64 {
	if a != 0 && b > maxSpan/a {
		*ok = false
		return maxSpan
	}
	return a * b
}

// addSpan returns a+b for a, b >= 0, clearing *ok when it exceeds maxSpan.
func addSpan(a, b int64, ok *bool) int64 {
	if a > maxSpan-b {
		*ok = false
		return maxSpan
	}
	return a + b
}

// ErrClosed is returned by every use of a closed Plan.
var ErrClosed = driver.ErrClosed

func (t Type) valid() bool { return backend.FFTType(t).Valid() }

// Plan1D makes a plan of batch 1D transforms of n points (cufftPlan1d) on
// stream s.
func Plan1D(s *stream.Stream, n int, t Type, batch int) (*Plan, error) {
	return PlanMany(s, Many{N: []int{n}, Type: t, Batch: batch})
}

// Plan2D makes a plan of one nx×ny transform (cufftPlan2d; nx the
// slowest-varying axis) on stream s.
func Plan2D(s *stream.Stream, nx, ny int, t Type) (*Plan, error) {
	return PlanMany(s, Many{N: []int{nx, ny}, Type: t, Batch: 1})
}

// Plan3D makes a plan of one nx×ny×nz transform (cufftPlan3d) on stream s.
func Plan3D(s *stream.Stream, nx, ny, nz int, t Type) (*Plan, error) {
	return PlanMany(s, Many{N: []int{nx, ny, nz}, Type: t, Batch: 1})
}

// PlanMany makes the plan m describes (cufftCreate, cufftSetAutoAllocation,
// cufftMakePlanMany64, cufftSetStream) on stream s, in s's context.
func PlanMany(s *stream.Stream, m Many) (_ *Plan, err error) {
	const op = "cufft.PlanMany"
	if _, err := core.OpenQueue(op, s); err != nil {
		return nil, err
	}
	pl, in, out, err := m.check(op)
	if err != nil {
		return nil, err
	}
	c := core.ContextOf(s.Context())
	f, err := core.Provided(op, c, "cuFFT", backend.FFTProvider.CUFFT)
	if err != nil {
		return nil, err
	}
	p := &Plan{f: f, m: m, in: in, out: out, s: s}
	p.m.N = append([]int(nil), m.N...)
	p.hold, p.h, err = c.Create(f.Create, func(h uintptr) error {
		if err := f.SetAutoAllocation(h, !m.ManualWorkArea); err != nil {
			return err
		}
		ws, err := f.MakePlanMany(h, pl)
		if err != nil {
			return err
		}
		p.ws = int(ws)
		return f.SetStream(h, s.Handle())
	}, f.Destroy)
	if err != nil {
		return nil, fmt.Errorf("%s: %v %v ×%d: %w", op, m.Type, m.N, m.Batch, err)
	}
	return p, nil
}

// check checks m and returns the seam's plan and both sides' layouts.
func (m *Many) check(op string) (*backend.FFTPlan, side, side, error) {
	bad := func(format string, a ...any) (*backend.FFTPlan, side, side, error) {
		return nil, side{}, side{}, fmt.Errorf("%s: %s: %w", op, fmt.Sprintf(format, a...), driver.ErrInvalidInput)
	}
	if !m.Type.valid() {
		return bad("type %d is not a cuFFT type", int(m.Type))
	}
	if len(m.N) < 1 || len(m.N) > 3 {
		return bad("%d axes, not 1 to 3", len(m.N))
	}
	if m.Batch < 1 {
		return bad("batch %d", m.Batch)
	}
	total := int64(m.Batch)
	n := make([]int64, len(m.N))
	for i, x := range m.N {
		if x < 1 {
			return bad("size %d on axis %d", x, i)
		}
		if total > (1<<62)/int64(x) {
			return bad("%v ×%d overflows", m.N, m.Batch)
		}
		total *= int64(x)
		n[i] = int64(x)
	}
	inDims, outDims := n, n
	half := append([]int64(nil), n...)
	half[len(half)-1] = half[len(half)-1]/2 + 1
	switch m.Type {
	case R2C, D2Z:
		outDims = half
	case C2R, Z2D:
		inDims = half
	}
	pl := &backend.FFTPlan{N: n, Type: backend.FFTType(m.Type), Batch: int64(m.Batch)}
	if (m.In == nil) != (m.Out == nil) {
		return bad("In and Out layouts must both be given or both be nil")
	}
	if m.In == nil {
		in := side{dims: inDims, embed: inDims, stride: 1, dist: product(inDims)}
		out := side{dims: outDims, embed: outDims, stride: 1, dist: product(outDims)}
		return pl, in, out, nil
	}
	mk := func(name string, l *Layout, dims []int64) (side, error) {
		if len(l.Embed) != len(n) {
			return side{}, fmt.Errorf("%s: %s layout: %d embedding sizes for %d axes: %w", op, name, len(l.Embed), len(n), driver.ErrInvalidInput)
		}
		if l.Stride < 1 || l.Dist < 0 {
			return side{}, fmt.Errorf("%s: %s layout: stride %d, distance %d: %w", op, name, l.Stride, l.Dist, driver.ErrInvalidInput)
		}
		e := make([]int64, len(n))
		for i, x := range l.Embed {
			if i > 0 && int64(x) < dims[i] {
				return side{}, fmt.Errorf("%s: %s layout: embedding %d < %d on axis %d: %w", op, name, x, dims[i], i, driver.ErrInvalidInput)
			}
			e[i] = int64(x)
		}
		sd := side{dims: dims, embed: e, stride: int64(l.Stride), dist: int64(l.Dist)}
		if _, ok := sd.span(int64(m.Batch)); !ok {
			return side{}, fmt.Errorf("%s: %s layout: stride %d, distance %d, embedding %v over %d batches spans more than %d elements: %w",
				op, name, l.Stride, l.Dist, l.Embed, m.Batch, int64(maxSpan), driver.ErrInvalidInput)
		}
		return sd, nil
	}
	in, err := mk("In", m.In, inDims)
	if err != nil {
		return nil, side{}, side{}, err
	}
	out, err := mk("Out", m.Out, outDims)
	if err != nil {
		return nil, side{}, side{}, err
	}
	pl.InEmbed, pl.IStride, pl.IDist = in.embed, in.stride, in.dist
	pl.OutEmbed, pl.OStride, pl.ODist = out.embed, out.stride, out.dist
	return pl, in, out, nil
}

func product(d []int64) int64 {
	p := int64(1)
	for _, x := range d {
		p *= x
	}
	return p
}

// String describes the plan: "C2C [1024] ×8 plan 3 on owned stream 0x1c2 (...)".
func (p *Plan) String() string {
	if p == nil || p.hold == nil {
		return "nil plan"
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return fmt.Sprintf("%v %v ×%d plan %d on %s", p.m.Type, p.m.N, p.m.Batch, p.h, p.s)
}

// Handle returns the cufftHandle, for calls this package does not wrap; it
// stays the plan's. 0 after Close.
func (p *Plan) Handle() uintptr {
	if p == nil || p.hold == nil || p.hold.Closed() {
		return 0
	}
	return p.h
}

// Type returns the plan's transform type (0 for a nil Plan).
func (p *Plan) Type() Type {
	if p == nil {
		return 0
	}
	return p.m.Type
}

// WorkSize returns the size in bytes of the work area the plan needs (0
// for a nil Plan).
func (p *Plan) WorkSize() int {
	if p == nil {
		return 0
	}
	return p.ws
}

func (p *Plan) check(op string) error {
	if p == nil || p.hold == nil {
		return fmt.Errorf("%s: nil plan: %w", op, driver.ErrInvalidInput)
	}
	if p.hold.Closed() {
		return fmt.Errorf("%s: %v plan: %w", op, p.m.Type, ErrClosed)
	}
	return nil
}

// do makes one cuFFT call with the plan's context bound, under its lock.
func (p *Plan) do(op string, call func() error) error {
	if err := p.check(op); err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.hold.Closed() {
		return fmt.Errorf("%s: %v plan: %w", op, p.m.Type, ErrClosed)
	}
	if err := p.hold.Do(func(backend.API) error { return call() }); err != nil {
		return fmt.Errorf("%s: %v plan %d: %w", op, p.m.Type, p.h, err)
	}
	return nil
}

// Close destroys the plan (cufftDestroy) and with it cuFFT's own work
// area. A second Close is nil; Close of a nil or zero Plan is an error
// wrapping [driver.ErrInvalidValue]. A work area given with SetWorkArea
// stays the caller's.
func (p *Plan) Close() error {
	if p == nil || p.hold == nil {
		return fmt.Errorf("cufft.Plan.Close: nil or zero plan: %w", driver.ErrInvalidInput)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.hold.Close(func(backend.API) error { return p.f.Destroy(p.h) })
}

// SetStream binds the plan to s, an open stream of its context (cufftSetStream).
func (p *Plan) SetStream(s *stream.Stream) error {
	const op = "cufft.Plan.SetStream"
	if err := p.check(op); err != nil {
		return err
	}
	if _, err := core.OpenQueue(op, s); err != nil {
		return err
	}
	if s.Context().Handle() != p.hold.Context().Handle {
		return fmt.Errorf("%s: %s is not in the plan's context %s: %w", op, s, p.hold.Context(), driver.ErrWrongContext)
	}
	return p.do(op, func() error {
		if err := p.f.SetStream(p.h, s.Handle()); err != nil {
			return err
		}
		p.s = s
		return nil
	})
}

// SetWorkArea gives a plan made with ManualWorkArea its work area
// (cufftSetWorkArea): a buffer of at least WorkSize bytes in the plan's
// context, which the caller keeps open while the plan's transforms run.
func (p *Plan) SetWorkArea(b *memory.Buffer[byte]) error {
	const op = "cufft.Plan.SetWorkArea"
	if err := p.check(op); err != nil {
		return err
	}
	if err := buffer(p, op, "work area", b, int64(p.ws)); err != nil {
		return err
	}
	return p.do(op, func() error {
		if err := p.f.SetWorkArea(p.h, b.Ptr()); err != nil {
			return err
		}
		p.work = b
		return nil
	})
}

// buffer checks that b is open, in the plan's context and holds n elements.
func buffer[T any](p *Plan, op, role string, b *memory.Buffer[T], n int64) error {
	if b == nil || b.Context() == nil {
		return fmt.Errorf("%s: %s: nil buffer: %w", op, role, driver.ErrInvalidInput)
	}
	if b.Closed() {
		return fmt.Errorf("%s: %s: %s: %w", op, role, b, driver.ErrClosed)
	}
	if b.Context().Handle() != p.hold.Context().Handle {
		return fmt.Errorf("%s: %s: %s is not in the plan's context %s: %w", op, role, b, p.hold.Context(), driver.ErrWrongContext)
	}
	if int64(b.Len()) < n {
		return fmt.Errorf("%s: %s: %s holds %d elements, the plan's layout spans %d: %w", op, role, b, b.Len(), n, driver.ErrInvalidInput)
	}
	return nil
}
