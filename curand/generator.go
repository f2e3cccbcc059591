package curand

import (
	"fmt"
	"sync"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/core"
	"github.com/nocgo/cuda/stream"
)

// RNG names a generator (curandRngType_t).
type RNG int

// The generators.
const (
	// Philox is Philox4_32_10: counter-based, the fastest, 2^64
	// subsequences of 2^66 numbers.
	Philox RNG = RNG(backend.RNGPhilox4x32x10)
	// XORWOW is cuRAND's default pseudo-random generator.
	XORWOW RNG = RNG(backend.RNGXORWOW)
	// MRG32k3a is L'Ecuyer's combined multiple recursive generator.
	MRG32k3a RNG = RNG(backend.RNGMRG32k3a)
	// MTGP32 is the Mersenne Twister for graphics processors.
	MTGP32 RNG = RNG(backend.RNGMTGP32)
	// Sobol32 is the Sobol quasi-random sequence, 32-bit.
	Sobol32 RNG = RNG(backend.RNGSobol32)
	// ScrambledSobol32 is Sobol32 with scrambling.
	ScrambledSobol32 RNG = RNG(backend.RNGScrambledSobol32)
	// Sobol64 is the Sobol quasi-random sequence, 64-bit (Bits64).
	Sobol64 RNG = RNG(backend.RNGSobol64)
	// ScrambledSobol64 is Sobol64 with scrambling.
	ScrambledSobol64 RNG = RNG(backend.RNGScrambledSobol64)
)

func (r RNG) valid() bool {
	switch r {
	case Philox, XORWOW, MRG32k3a, MTGP32, Sobol32, ScrambledSobol32, Sobol64, ScrambledSobol64:
		return true
	}
	return false
}

// String returns "Philox4_32_10" and the like.
func (r RNG) String() string {
	switch r {
	case Philox:
		return "Philox4_32_10"
	case XORWOW:
		return "XORWOW"
	case MRG32k3a:
		return "MRG32k3a"
	case MTGP32:
		return "MTGP32"
	case Sobol32:
		return "Sobol32"
	case ScrambledSobol32:
		return "ScrambledSobol32"
	case Sobol64:
		return "Sobol64"
	case ScrambledSobol64:
		return "ScrambledSobol64"
	}
	return fmt.Sprintf("curand.RNG(%d)", int(r))
}

// Quasi reports whether r is a quasi-random (Sobol) generator.
func (r RNG) Quasi() bool { return backend.RNGType(r).Quasi() }

// Ordering is how a generator lays its numbers out in memory
// (curandOrdering_t; see cuRAND's documentation of each).
type Ordering int

// The orderings.
const (
	OrderingDefault Ordering = Ordering(backend.OrderingPseudoDefault)
	OrderingBest    Ordering = Ordering(backend.OrderingPseudoBest)
	OrderingSeeded  Ordering = Ordering(backend.OrderingPseudoSeeded)
	OrderingLegacy  Ordering = Ordering(backend.OrderingPseudoLegacy)
	OrderingDynamic Ordering = Ordering(backend.OrderingPseudoDynamic)
	// OrderingQuasiDefault is the one ordering of quasi-random generators.
	OrderingQuasiDefault Ordering = Ordering(backend.OrderingQuasiDefault)
)

// Generator is a cuRAND generator (curandGenerator_t) in one context,
// bound to a stream of it. It is owned: Close destroys it; a second Close
// is nil, and every other method after Close returns an error wrapping
// driver.ErrClosed. It holds its context until Close, so it keeps working
// after the *driver.Context is released. Methods are safe for concurrent
// use; cuRAND serialises the generator's work on its stream.
type Generator struct {
	r    backend.CURAND
	hold *core.Hold
	kind RNG
	h    uintptr
	dims int

	mu sync.Mutex // guards s and dims, serialises calls into cuRAND on the generator
	s  *stream.Stream
}

// ErrClosed is returned by every use of a closed Generator.
var ErrClosed = driver.ErrClosed

// New creates a generator of kind r bound to stream s, in s's context
// (curandCreateGenerator, curandSetStream). Pseudo-random generators start
// with seed 0 and offset 0, quasi-random ones with one dimension.
func New(s *stream.Stream, r RNG) (_ *Generator, err error) {
	const op = "curand.New"
	if _, err := core.OpenQueue(op, s); err != nil {
		return nil, err
	}
	if !r.valid() {
		return nil, fmt.Errorf("%s: %v: not a generator: %w", op, r, driver.ErrInvalidInput)
	}
	c := core.ContextOf(s.Context())
	lib, err := core.Provided(op, c, "cuRAND", backend.RANDProvider.CURAND)
	if err != nil {
		return nil, err
	}
	hold, h, err := c.Create(func() (uintptr, error) { return lib.CreateGenerator(backend.RNGType(r)) },
		func(h uintptr) error { return lib.SetStream(h, s.Handle()) }, lib.DestroyGenerator)
	if err != nil {
		return nil, fmt.Errorf("%s: %v on %s: %w", op, r, s, err)
	}
	return &Generator{r: lib, hold: hold, kind: r, h: h, dims: 1, s: s}, nil
}

// String describes the generator: "Philox4_32_10 generator 0x5a0 on owned stream 0x1c2 (...)".
func (g *Generator) String() string {
	if g == nil || g.hold == nil {
		return "nil generator"
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return fmt.Sprintf("%v generator %#x on %s", g.kind, g.h, g.s)
}

// RNG returns the generator's kind.
func (g *Generator) RNG() RNG {
	if g == nil {
		return 0
	}
	return g.kind
}

// Handle returns the curandGenerator_t, for calls this package does not
// wrap; it stays the generator's (do not destroy it). 0 after Close.
func (g *Generator) Handle() uintptr {
	if g == nil || g.hold == nil || g.hold.Closed() {
		return 0
	}
	return g.h
}

// Stream returns the stream the generator is bound to.
func (g *Generator) Stream() *stream.Stream {
	if g == nil || g.hold == nil {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.s
}

// check returns an error unless g is open.
func (g *Generator) check(op string) error {
	if g == nil || g.hold == nil {
		return fmt.Errorf("%s: nil generator: %w", op, driver.ErrInvalidInput)
	}
	if g.hold.Closed() {
		return fmt.Errorf("%s: %v generator: %w", op, g.kind, ErrClosed)
	}
	return nil
}

// do makes one cuRAND call with the generator's context bound, under its lock.
func (g *Generator) do(op string, call func() error) error {
	if err := g.check(op); err != nil {
		return err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.hold.Closed() {
		return fmt.Errorf("%s: %v generator: %w", op, g.kind, ErrClosed)
	}
	if err := g.hold.Do(func(backend.API) error { return call() }); err != nil {
		return fmt.Errorf("%s: %v generator %#x: %w", op, g.kind, g.h, err)
	}
	return nil
}

// Close destroys the generator (curandDestroyGenerator). A second Close is
// nil; Close of a nil or zero Generator is an error wrapping
// [driver.ErrInvalidValue]. The stream and buffers it used are the caller's.
func (g *Generator) Close() error {
	if g == nil || g.hold == nil {
		return fmt.Errorf("curand.Generator.Close: nil or zero generator: %w", driver.ErrInvalidInput)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.hold.Close(func(backend.API) error { return g.r.DestroyGenerator(g.h) })
}

// SetStream binds the generator to s, an open stream of its context
// (curandSetStream): later calls queue their work there.
func (g *Generator) SetStream(s *stream.Stream) error {
	const op = "curand.Generator.SetStream"
	if err := g.check(op); err != nil {
		return err
	}
	if _, err := core.OpenQueue(op, s); err != nil {
		return err
	}
	if s.Context().Handle() != g.hold.Context().Handle {
		return fmt.Errorf("%s: %s is not in the generator's context %s: %w", op, s, g.hold.Context(), driver.ErrWrongContext)
	}
	return g.do(op, func() error {
		if err := g.r.SetStream(g.h, s.Handle()); err != nil {
			return err
		}
		g.s = s
		return nil
	})
}

// SetSeed sets a pseudo-random generator's seed
// (curandSetPseudoRandomGeneratorSeed). The offset stays where the calls
// so far left it, as libcurand keeps it: to start the seed's sequence over,
// call SetOffset(0) too. Quasi-random generators have no seed: an error.
func (g *Generator) SetSeed(seed uint64) error {
	const op = "curand.Generator.SetSeed"
	if err := g.check(op); err != nil {
		return err
	}
	if g.kind.Quasi() {
		return fmt.Errorf("%s: %v has no seed: %w", op, g.kind, driver.ErrInvalidInput)
	}
	return g.do(op, func() error { return g.r.SetSeed(g.h, seed) })
}

// SetOffset skips the generator ahead to offset (curandSetGeneratorOffset):
// numbers of pseudo-random generators, points of quasi-random ones. An
// MTGP32 generator takes no offset (libcurand answers
// CURAND_STATUS_TYPE_ERROR): for it SetOffset is an error wrapping
// driver.ErrInvalidValue, and changes nothing; a new generator with the
// same seed restarts its sequence.
func (g *Generator) SetOffset(offset uint64) error {
	const op = "curand.Generator.SetOffset"
	if err := g.check(op); err != nil {
		return err
	}
	if g.kind == MTGP32 {
		return fmt.Errorf("%s: %v generators take no offset (cuRAND's CURAND_STATUS_TYPE_ERROR): %w", op, g.kind, driver.ErrInvalidInput)
	}
	return g.do(op, func() error { return g.r.SetOffset(g.h, offset) })
}

// SetOrdering chooses the generator's ordering (curandSetGeneratorOrdering):
// OrderingQuasiDefault for quasi-random generators, one of the others for
// pseudo-random ones.
func (g *Generator) SetOrdering(o Ordering) error {
	const op = "curand.Generator.SetOrdering"
	if err := g.check(op); err != nil {
		return err
	}
	if g.kind.Quasi() != (o == OrderingQuasiDefault) || o < OrderingBest || (o > OrderingDynamic && o != OrderingQuasiDefault) {
		return fmt.Errorf("%s: ordering %d is not one of %v's: %w", op, int(o), g.kind, driver.ErrInvalidInput)
	}
	return g.do(op, func() error { return g.r.SetOrdering(g.h, backend.RANDOrdering(o)) })
}

// SetDimensions sets a quasi-random generator's dimensions, 1 to 20000, and
// resets its offset to 0 (curandSetQuasiRandomGeneratorDimensions). A call
// then generates n numbers as dimensions blocks of n/dimensions: dimension
// d's points at [d·n/dimensions, (d+1)·n/dimensions).
func (g *Generator) SetDimensions(dimensions int) error {
	const op = "curand.Generator.SetDimensions"
	if err := g.check(op); err != nil {
		return err
	}
	if !g.kind.Quasi() {
		return fmt.Errorf("%s: %v has no dimensions: %w", op, g.kind, driver.ErrInvalidInput)
	}
	if dimensions < 1 || dimensions > 20000 {
		return fmt.Errorf("%s: %d dimensions, not 1 to 20000: %w", op, dimensions, driver.ErrInvalidInput)
	}
	return g.do(op, func() error {
		if err := g.r.SetDimensions(g.h, uint32(dimensions)); err != nil {
			return err
		}
		g.dims = dimensions
		return nil
	})
}
