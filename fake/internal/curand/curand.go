package curand

import (
	"encoding/binary"
	"math"
	"strconv"
	"sync"

	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/fake/internal/ondevice"
)

// Version is the cuRAND version the fake reports: 10.4.0 (CUDA 13.0).
const Version = 10400

// Lib is the fake cuRAND over one fake driver's queue.
type Lib struct {
	q    ondevice.Queue
	mu   sync.Mutex
	gens map[uintptr]*generator
	next uintptr
}

type generator struct {
	kind     backend.RNGType
	seed     uint64
	offset   uint64 // words (pseudo) or points per dimension (quasi) generated so far, plus the set offset
	ordering backend.RANDOrdering
	dims     uint32
	stream   uintptr
}

var _ backend.CURAND = (*Lib)(nil)

// New returns the fake cuRAND of the driver behind q.
func New(q ondevice.Queue) *Lib {
	return &Lib{q: q, gens: map[uintptr]*generator{}, next: 0x7d000000}
}

func fail(op string, s backend.RANDStatus, detail string) error {
	return &backend.RANDError{Status: s, Op: op, Detail: detail}
}

// Version is curandGetVersion.
func (l *Lib) Version() (int, error) { return Version, nil }

// CreateGenerator is curandCreateGenerator.
func (l *Lib) CreateGenerator(kind backend.RNGType) (uintptr, error) {
	g := &generator{kind: kind, ordering: backend.OrderingPseudoDefault, dims: 1}
	switch kind {
	case backend.RNGPseudoDefault:
		g.kind = backend.RNGXORWOW
	case backend.RNGQuasiDefault:
		g.kind = backend.RNGSobol32
	case backend.RNGXORWOW, backend.RNGMRG32k3a, backend.RNGMTGP32, backend.RNGMT19937, backend.RNGPhilox4x32x10,
		backend.RNGSobol32, backend.RNGScrambledSobol32, backend.RNGSobol64, backend.RNGScrambledSobol64:
	default:
		return 0, fail("curandCreateGenerator", backend.RANDTypeError, "unknown generator type "+strconv.Itoa(int(kind)))
	}
	if g.kind.Quasi() {
		g.ordering = backend.OrderingQuasiDefault
	} else {
		g.seed = 0 // cuRAND's default seed
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.next += 0x40
	l.gens[l.next] = g
	return l.next, nil
}

// with runs f on generator h under the lock.
func (l *Lib) with(op string, h uintptr, f func(g *generator) error) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	g, ok := l.gens[h]
	if !ok {
		return fail(op, backend.RANDNotInitialized, "not a generator")
	}
	return f(g)
}

// DestroyGenerator is curandDestroyGenerator.
func (l *Lib) DestroyGenerator(h uintptr) error {
	return l.with("curandDestroyGenerator", h, func(*generator) error {
		delete(l.gens, h)
		return nil
	})
}

// SetStream is curandSetStream.
func (l *Lib) SetStream(h, s uintptr) error {
	return l.with("curandSetStream", h, func(g *generator) error {
		g.stream = s
		return nil
	})
}

// SetSeed is curandSetPseudoRandomGeneratorSeed: the offset stays where it
// is, as libcurand keeps it (a second run of the same seed needs
// SetOffset(0) too).
func (l *Lib) SetSeed(h uintptr, seed uint64) error {
	const op = "curandSetPseudoRandomGeneratorSeed"
	return l.with(op, h, func(g *generator) error {
		if g.kind.Quasi() {
			return fail(op, backend.RANDTypeError, "a quasi-random generator has no seed")
		}
		g.seed = seed // the offset stays, as libcurand keeps it (seen on the H200)
		return nil
	})
}

// SetOffset is curandSetGeneratorOffset.
func (l *Lib) SetOffset(h uintptr, off uint64) error {
	const op = "curandSetGeneratorOffset"
	return l.with(op, h, func(g *generator) error {
		if g.kind == backend.RNGMTGP32 {
			// libcurand refuses it so (seen on the H200, CUDA 13.0).
			return fail(op, backend.RANDTypeError, "MTGP32 generators take no offset")
		}
		g.offset = off
		return nil
	})
}

// SetOrdering is curandSetGeneratorOrdering.
func (l *Lib) SetOrdering(h uintptr, o backend.RANDOrdering) error {
	const op = "curandSetGeneratorOrdering"
	return l.with(op, h, func(g *generator) error {
		ok := o == backend.OrderingQuasiDefault
		if !g.kind.Quasi() {
			ok = o >= backend.OrderingPseudoBest && o <= backend.OrderingPseudoDynamic
		}
		if !ok {
			return fail(op, backend.RANDOutOfRange, "ordering "+strconv.Itoa(int(o))+" is not one of this generator's")
		}
		g.ordering = o
		return nil
	})
}

// SetDimensions is curandSetQuasiRandomGeneratorDimensions: it also resets
// the offset to 0, as cuRAND does.
func (l *Lib) SetDimensions(h uintptr, n uint32) error {
	const op = "curandSetQuasiRandomGeneratorDimensions"
	return l.with(op, h, func(g *generator) error {
		if !g.kind.Quasi() {
			return fail(op, backend.RANDTypeError, "a pseudo-random generator has no dimensions")
		}
		if n < 1 || n > MaxSobolDimensions {
			return fail(op, backend.RANDOutOfRange, strconv.Itoa(int(n))+" dimensions, not 1 to 20000")
		}
		g.dims, g.offset = n, 0
		return nil
	})
}

// job is one generation call, its parameters read when it was made.
type job struct {
	kind             backend.RNGType
	seed, offset     uint64
	dims             uint32
	n                uint64
	out              uintptr
	size             uintptr // bytes per element
	write            func(dst []byte, j *job)
	mean, sd, lambda float64
	ordering         backend.RANDOrdering
}

// generate checks and queues a call on g's stream: words is how many words
// (pseudo) or points per dimension (quasi) the call uses.
func (l *Lib) generate(op string, h, out, n uintptr, size uintptr, pairs bool, words func(n uint64) uint64, j job, write func([]byte, *job)) error {
	var s uintptr
	err := l.with(op, h, func(g *generator) error {
		if g.kind.Quasi() {
			if uint64(n)%uint64(g.dims) != 0 {
				return fail(op, backend.RANDLengthNotMultiple, strconv.FormatUint(uint64(n), 10)+" numbers for "+strconv.Itoa(int(g.dims))+" dimensions")
			}
		} else if pairs && n%2 != 0 {
			return fail(op, backend.RANDLengthNotMultiple, "normal numbers come in pairs: an odd count "+strconv.FormatUint(uint64(n), 10))
		}
		if n > math.MaxUint64/16 || (n != 0 && size > ^uintptr(0)/n) {
			return fail(op, backend.RANDOutOfRange, "count too large")
		}
		j.kind, j.seed, j.offset, j.dims, j.n, j.out, j.size, j.write = g.kind, g.seed, g.offset, g.dims, uint64(n), out, size, write
		j.ordering = g.ordering
		if g.kind.Quasi() {
			g.offset += uint64(n) / uint64(g.dims)
		} else {
			g.offset += words(uint64(n))
		}
		s = g.stream
		return nil
	})
	if err != nil || n == 0 {
		return err
	}
	return l.q.Enqueue(op, s, func(m ondevice.Memory) error {
		dst, err := m.Write(j.out, uintptr(j.n)*j.size)
		if err != nil {
			return err
		}
		j.write(dst, &j)
		return nil
	})
}

func same(n uint64) uint64 { return n }

// words32 fills w with the generator's 32-bit words for this job (pseudo:
// from the offset on; quasi: dimension-major, n/dims points each).
func (j *job) words32(w []uint32) {
	if !j.kind.Quasi() {
		newStream(j.kind, j.seed, j.ordering).words(w, j.offset)
		return
	}
	v, _ := directions(int(j.dims))
	per := uint64(len(w)) / uint64(j.dims)
	for d := uint64(0); d < uint64(j.dims); d++ {
		c := scramble32(j.kind, int(d))
		for i := uint64(0); i < per; i++ {
			w[d*per+i] = c ^ sobol32At(&v[d], j.offset+i)
		}
	}
}

func (j *job) words64(w []uint64) {
	_, v := directions(int(j.dims))
	per := uint64(len(w)) / uint64(j.dims)
	for d := uint64(0); d < uint64(j.dims); d++ {
		c := scramble64(j.kind, int(d))
		for i := uint64(0); i < per; i++ {
			w[d*per+i] = c ^ sobol64At(&v[d], j.offset+i)
		}
	}
}

// scramble32 is the scrambling constant of a scrambled Sobol dimension: the
// fake's own (cuRAND's come from curandGetScrambleConstants32, a table of
// the library's), so scrambled sequences are not cuRAND's values.
func scramble32(kind backend.RNGType, d int) uint32 {
	if kind != backend.RNGScrambledSobol32 {
		return 0
	}
	return philoxAt(0x5c7a3b1e, uint64(d), 0)
}

func scramble64(kind backend.RNGType, d int) uint64 {
	if kind != backend.RNGScrambledSobol64 {
		return 0
	}
	return uint64(philoxAt(0x5c7a3b1e, uint64(d), 1))<<32 | uint64(philoxAt(0x5c7a3b1e, uint64(d), 2))
}

// unifs returns n uniform doubles in (0, 1] as cuRAND's double
// conversions give them (hq: two words each, for XORWOW and Philox).
func (j *job) unifDoubles(n uint64) []float64 {
	out := make([]float64, n)
	switch {
	case j.kind.Bits64():
		w := make([]uint64, n)
		j.words64(w)
		for i, x := range w {
			out[i] = uniformDouble64(x)
		}
	case j.kind.Quasi():
		w := make([]uint32, n)
		j.words32(w)
		for i, x := range w {
			out[i] = uniformDouble32(x)
		}
	case j.kind == backend.RNGMRG32k3a:
		mrgDoubles(j.seed, j.ordering, out, j.offset)
		for i := range out {
			out[i] *= mrgNorm
		}
	case j.kind == backend.RNGMTGP32 || j.kind == backend.RNGMT19937:
		w := make([]uint32, n)
		j.words32(w)
		for i, x := range w {
			out[i] = uniformDouble32(x)
		}
	default:
		w := make([]uint32, 2*n)
		doubleWords32(j.kind, j.seed, w, j.offset)
		for i := range out {
			out[i] = uniformDoubleHQ(w[2*i], w[2*i+1])
		}
	}
	return out
}

func (l *Lib) kindOf(h uintptr) backend.RNGType {
	l.mu.Lock()
	defer l.mu.Unlock()
	if g, ok := l.gens[h]; ok {
		return g.kind
	}
	return 0
}

// Generate is curandGenerate.
func (l *Lib) Generate(h, out, n uintptr) error {
	const op = "curandGenerate"
	if l.kindOf(h).Bits64() {
		return fail(op, backend.RANDTypeError, "a 64-bit generator: use curandGenerateLongLong")
	}
	return l.generate(op, h, out, n, 4, false, same, job{}, func(dst []byte, j *job) {
		w := make([]uint32, j.n)
		j.words32(w)
		for i, x := range w {
			binary.LittleEndian.PutUint32(dst[4*i:], x)
		}
	})
}

// GenerateLongLong is curandGenerateLongLong.
func (l *Lib) GenerateLongLong(h, out, n uintptr) error {
	const op = "curandGenerateLongLong"
	if k := l.kindOf(h); k != 0 && !k.Bits64() {
		return fail(op, backend.RANDTypeError, "not a 64-bit generator")
	}
	return l.generate(op, h, out, n, 8, false, same, job{}, func(dst []byte, j *job) {
		w := make([]uint64, j.n)
		j.words64(w)
		for i, x := range w {
			binary.LittleEndian.PutUint64(dst[8*i:], x)
		}
	})
}

// GenerateUniform is curandGenerateUniform.
func (l *Lib) GenerateUniform(h, out, n uintptr) error {
	const op = "curandGenerateUniform"
	return l.generate(op, h, out, n, 4, false, same, job{}, func(dst []byte, j *job) {
		if j.kind.Bits64() {
			w := make([]uint64, j.n)
			j.words64(w)
			for i, x := range w {
				binary.LittleEndian.PutUint32(dst[4*i:], math.Float32bits(uniform64(x)))
			}
			return
		}
		if j.kind == backend.RNGMRG32k3a {
			d := make([]float64, j.n)
			mrgDoubles(j.seed, j.ordering, d, j.offset)
			for i, x := range d {
				binary.LittleEndian.PutUint32(dst[4*i:], math.Float32bits(float32(x*mrgNorm)))
			}
			return
		}
		w := make([]uint32, j.n)
		j.words32(w)
		for i, x := range w {
			binary.LittleEndian.PutUint32(dst[4*i:], math.Float32bits(uniform32(x)))
		}
	})
}

// GenerateUniformDouble is curandGenerateUniformDouble.
func (l *Lib) GenerateUniformDouble(h, out, n uintptr) error {
	const op = "curandGenerateUniformDouble"
	return l.generate(op, h, out, n, 8, false, same, job{}, func(dst []byte, j *job) {
		for i, x := range j.unifDoubles(j.n) {
			binary.LittleEndian.PutUint64(dst[8*i:], math.Float64bits(x))
		}
	})
}

// normals returns n normal(0, 1) numbers: Box–Muller on pairs of words for
// pseudo-random generators, the inverse normal CDF for quasi-random ones.
func (j *job) normals(double bool) []float64 {
	out := make([]float64, j.n)
	switch {
	case j.kind.Bits64():
		for i, u := range j.unifDoubles(j.n) {
			out[i] = normalInv(u)
		}
	case j.kind.Quasi():
		w := make([]uint32, j.n)
		j.words32(w)
		for i, x := range w {
			if double {
				out[i] = icdfDouble32(x)
			} else {
				out[i] = float64(icdf32(x))
			}
		}
	case j.kind == backend.RNGMRG32k3a:
		d := make([]float64, j.n)
		mrgDoubles(j.seed, j.ordering, d, j.offset)
		for i := 0; i+1 < len(d); i += 2 {
			u, v := d[i]*mrgNorm, d[i+1]*mrgNorm
			s := math.Sqrt(-2 * math.Log(u))
			sin, cos := math.Sincos(2 * math.Pi * v)
			out[i], out[i+1] = s*sin, s*cos
		}
	case double:
		w := make([]uint32, 2*j.n)
		doubleWords32(j.kind, j.seed, w, j.offset)
		for i := 0; i+1 < len(out); i += 2 {
			out[i], out[i+1] = boxMullerDouble(w[2*i], w[2*i+1], w[2*i+2], w[2*i+3])
		}
	default:
		w := make([]uint32, j.n)
		j.words32(w)
		for i := 0; i+1 < len(out); i += 2 {
			a, b := boxMuller(w[i], w[i+1])
			out[i], out[i+1] = float64(a), float64(b)
		}
	}
	return out
}

func (l *Lib) normal(op string, h, out, n uintptr, mean, sd float64, double, logn bool) error {
	size := uintptr(4)
	if double {
		size = 8
	}
	return l.generate(op, h, out, n, size, true, same, job{mean: mean, sd: sd}, func(dst []byte, j *job) {
		for i, z := range j.normals(double) {
			var x float64
			if double {
				x = j.mean + j.sd*z
			} else {
				x = float64(float32(j.mean) + float32(j.sd)*float32(z))
			}
			if logn {
				x = math.Exp(x)
			}
			if double {
				binary.LittleEndian.PutUint64(dst[8*i:], math.Float64bits(x))
			} else {
				binary.LittleEndian.PutUint32(dst[4*i:], math.Float32bits(float32(x)))
			}
		}
	})
}

// GenerateNormal is curandGenerateNormal.
func (l *Lib) GenerateNormal(h, out, n uintptr, mean, sd float32) error {
	return l.normal("curandGenerateNormal", h, out, n, float64(mean), float64(sd), false, false)
}

// GenerateNormalDouble is curandGenerateNormalDouble.
func (l *Lib) GenerateNormalDouble(h, out, n uintptr, mean, sd float64) error {
	return l.normal("curandGenerateNormalDouble", h, out, n, mean, sd, true, false)
}

// GenerateLogNormal is curandGenerateLogNormal.
func (l *Lib) GenerateLogNormal(h, out, n uintptr, mean, sd float32) error {
	return l.normal("curandGenerateLogNormal", h, out, n, float64(mean), float64(sd), false, true)
}

// GenerateLogNormalDouble is curandGenerateLogNormalDouble.
func (l *Lib) GenerateLogNormalDouble(h, out, n uintptr, mean, sd float64) error {
	return l.normal("curandGenerateLogNormalDouble", h, out, n, mean, sd, true, true)
}

// GeneratePoisson is curandGeneratePoisson. Each variate i draws its
// uniforms from its own Philox subsequence (seed, word offset+i).
func (l *Lib) GeneratePoisson(h, out, n uintptr, lambda float64) error {
	const op = "curandGeneratePoisson"
	if !(lambda > 0) || lambda > 400000 {
		return fail(op, backend.RANDOutOfRange, "lambda "+strconv.FormatFloat(lambda, 'g', -1, 64)+" outside (0, 400000]")
	}
	return l.generate(op, h, out, n, 4, false, same, job{lambda: lambda}, func(dst []byte, j *job) {
		key := j.seed ^ uint64(j.kind)<<48
		for i := uint64(0); i < j.n; i++ {
			e := uint64(0)
			next := func() float64 {
				e++
				return float64(uniform32(philoxAt(key, j.offset+i, e-1)))
			}
			binary.LittleEndian.PutUint32(dst[4*i:], poisson(j.lambda, next))
		}
	})
}
