package cufft

import (
	"encoding/binary"
	"math"
	"strconv"
	"sync"

	"gonum.org/v1/gonum/dsp/fourier"

	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/fake/internal/ondevice"
)

// Version is the cuFFT version the fake reports: 12.0.0 (CUDA 13.0).
const Version = 12000

// maxElements bounds a plan's total elements, as cuFFT's 64-bit plans do
// with the device's memory.
const maxElements = 1 << 40

// Lib is the fake cuFFT over one fake driver's queue.
type Lib struct {
	q     ondevice.Queue
	mu    sync.Mutex
	plans map[uintptr]*plan
	next  uintptr
}

var _ backend.CUFFT = (*Lib)(nil)

// New returns the fake cuFFT of the driver behind q.
func New(q ondevice.Queue) *Lib { return &Lib{q: q, plans: map[uintptr]*plan{}, next: 0} }

func fail(op string, r backend.FFTResult, detail string) error {
	return &backend.FFTError{Result: r, Op: op, Detail: detail}
}

// Version is cufftGetVersion.
func (l *Lib) Version() (int, error) { return Version, nil }

// Create is cufftCreate.
func (l *Lib) Create() (uintptr, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.next++
	l.plans[l.next] = &plan{auto: true}
	return l.next, nil
}

func (l *Lib) with(op string, h uintptr, f func(p *plan) error) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	p, ok := l.plans[h]
	if !ok {
		return fail(op, backend.FFTInvalidPlan, "not a plan")
	}
	return f(p)
}

// Destroy is cufftDestroy.
func (l *Lib) Destroy(h uintptr) error {
	return l.with("cufftDestroy", h, func(*plan) error {
		delete(l.plans, h)
		return nil
	})
}

// SetAutoAllocation is cufftSetAutoAllocation.
func (l *Lib) SetAutoAllocation(h uintptr, auto bool) error {
	return l.with("cufftSetAutoAllocation", h, func(p *plan) error {
		p.auto = auto
		return nil
	})
}

// MakePlanMany is cufftMakePlanMany64.
func (l *Lib) MakePlanMany(h uintptr, pl *backend.FFTPlan) (uintptr, error) {
	const op = "cufftMakePlanMany64"
	var ws uintptr
	err := l.with(op, h, func(p *plan) error {
		if p.made {
			return fail(op, backend.FFTInvalidPlan, "the plan is already made")
		}
		if !pl.Type.Valid() {
			return fail(op, backend.FFTInvalidType, pl.Type.String())
		}
		r := len(pl.N)
		if r < 1 || r > 3 {
			return fail(op, backend.FFTInvalidSize, "rank "+strconv.Itoa(r)+", not 1 to 3")
		}
		total := pl.Batch
		for _, x := range pl.N {
			if x < 1 {
				return fail(op, backend.FFTInvalidSize, "size "+strconv.FormatInt(x, 10))
			}
			if total > maxElements/x {
				return fail(op, backend.FFTInvalidSize, "too many elements")
			}
			total *= x
		}
		if pl.Batch < 1 {
			return fail(op, backend.FFTInvalidSize, "batch "+strconv.FormatInt(pl.Batch, 10))
		}
		if (pl.InEmbed == nil) != (pl.OutEmbed == nil) {
			return fail(op, backend.FFTInvalidValue, "inembed and onembed must both be given or both be NULL")
		}
		inDims, outDims := sides(pl.Type, pl.N)
		np := &plan{auto: p.auto, made: true, typ: pl.Type, n: append([]int64(nil), pl.N...), batch: pl.Batch, inDims: inDims, outDims: outDims, stream: p.stream, work: p.work}
		if pl.InEmbed == nil {
			np.basicReal = true
			np.in, np.out = basic(inDims, 0), basic(outDims, 0)
		} else {
			if len(pl.InEmbed) != r || len(pl.OutEmbed) != r {
				return fail(op, backend.FFTInvalidValue, "embeddings of the plan's rank")
			}
			for i := 1; i < r; i++ {
				if pl.InEmbed[i] < inDims[i] || pl.OutEmbed[i] < outDims[i] {
					return fail(op, backend.FFTInvalidValue, "an embedding smaller than the transform on axis "+strconv.Itoa(i))
				}
			}
			if pl.IStride < 1 || pl.OStride < 1 || pl.IDist < 0 || pl.ODist < 0 {
				return fail(op, backend.FFTInvalidValue, "strides must be positive and distances not negative")
			}
			np.in = layout{embed: append([]int64(nil), pl.InEmbed...), stride: pl.IStride, dist: pl.IDist}
			np.out = layout{embed: append([]int64(nil), pl.OutEmbed...), stride: pl.OStride, dist: pl.ODist}
			if !np.in.spans(inDims, pl.Batch) || !np.out.spans(outDims, pl.Batch) {
				return fail(op, backend.FFTInvalidValue, "a layout whose strides, distances and embeddings span more than 2^59 elements")
			}
		}
		esz := int64(8)
		if pl.Type.Double() {
			esz = 16
		}
		np.workSize = uintptr(product(pl.N) * pl.Batch * esz)
		*p = *np
		ws = p.workSize
		return nil
	})
	return ws, err
}

// GetSize is cufftGetSize.
func (l *Lib) GetSize(h uintptr) (uintptr, error) {
	var ws uintptr
	err := l.with("cufftGetSize", h, func(p *plan) error {
		ws = p.workSize
		return nil
	})
	return ws, err
}

// SetWorkArea is cufftSetWorkArea.
func (l *Lib) SetWorkArea(h, area uintptr) error {
	return l.with("cufftSetWorkArea", h, func(p *plan) error {
		p.work = area
		return nil
	})
}

// SetStream is cufftSetStream.
func (l *Lib) SetStream(h, s uintptr) error {
	return l.with("cufftSetStream", h, func(p *plan) error {
		p.stream = s
		return nil
	})
}

// ExecC2C is cufftExecC2C.
func (l *Lib) ExecC2C(h, in, out uintptr, dir backend.FFTDirection) error {
	return l.exec("cufftExecC2C", h, in, out, backend.FFTC2C, dir)
}

// ExecZ2Z is cufftExecZ2Z.
func (l *Lib) ExecZ2Z(h, in, out uintptr, dir backend.FFTDirection) error {
	return l.exec("cufftExecZ2Z", h, in, out, backend.FFTZ2Z, dir)
}

// ExecR2C is cufftExecR2C.
func (l *Lib) ExecR2C(h, in, out uintptr) error {
	return l.exec("cufftExecR2C", h, in, out, backend.FFTR2C, backend.FFTForward)
}

// ExecD2Z is cufftExecD2Z.
func (l *Lib) ExecD2Z(h, in, out uintptr) error {
	return l.exec("cufftExecD2Z", h, in, out, backend.FFTD2Z, backend.FFTForward)
}

// ExecC2R is cufftExecC2R.
func (l *Lib) ExecC2R(h, in, out uintptr) error {
	return l.exec("cufftExecC2R", h, in, out, backend.FFTC2R, backend.FFTInverse)
}

// ExecZ2D is cufftExecZ2D.
func (l *Lib) ExecZ2D(h, in, out uintptr) error {
	return l.exec("cufftExecZ2D", h, in, out, backend.FFTZ2D, backend.FFTInverse)
}

func (l *Lib) exec(op string, h, in, out uintptr, t backend.FFTType, dir backend.FFTDirection) error {
	var p plan
	err := l.with(op, h, func(pp *plan) error {
		if !pp.made {
			return fail(op, backend.FFTInvalidPlan, "the plan is not made")
		}
		if pp.typ != t {
			return fail(op, backend.FFTInvalidValue, "a "+pp.typ.String()+" plan")
		}
		if in == 0 || out == 0 {
			return fail(op, backend.FFTInvalidValue, "a NULL data pointer")
		}
		if dir != backend.FFTForward && dir != backend.FFTInverse {
			return fail(op, backend.FFTInvalidValue, "direction "+strconv.Itoa(int(dir)))
		}
		if !pp.auto && pp.work == 0 {
			return fail(op, backend.FFTExecFailed, "no work area: auto-allocation is off and none was set")
		}
		p = *pp
		return nil
	})
	if err != nil {
		return err
	}
	if p.basicReal && in == out && t != backend.FFTC2C && t != backend.FFTZ2Z {
		// In place, the real side's rows are padded to the complex side's.
		pad := 2 * (p.n[len(p.n)-1]/2 + 1)
		if t == backend.FFTR2C || t == backend.FFTD2Z {
			p.in = basic(p.inDims, pad)
			p.in.dist = 2 * p.out.dist
		} else {
			p.out = basic(p.outDims, pad)
			p.out.dist = 2 * p.in.dist
		}
	}
	return l.q.Enqueue(op, p.stream, func(m ondevice.Memory) error { return run(m, &p, in, out, dir) })
}

// element sizes of each side, in bytes.
func sizes(t backend.FFTType) (in, out int64) {
	switch t {
	case backend.FFTC2C:
		return 8, 8
	case backend.FFTZ2Z:
		return 16, 16
	case backend.FFTR2C:
		return 4, 8
	case backend.FFTD2Z:
		return 8, 16
	case backend.FFTC2R:
		return 8, 4
	}
	return 16, 8 // Z2D
}

// run computes the plan's transform: it reads every input element, then
// transforms batch by batch, then writes (in place or not).
func run(m ondevice.Memory, p *plan, in, out uintptr, dir backend.FFTDirection) error {
	isz, osz := sizes(p.typ)
	src, err := m.Read(in, uintptr(p.in.extent(p.inDims, p.batch)*isz))
	if err != nil {
		return err
	}
	dst, err := m.Write(out, uintptr(p.out.extent(p.outDims, p.batch)*osz))
	if err != nil {
		return err
	}
	total := product(p.n)
	inputs := make([][]complex128, p.batch)
	for b := int64(0); b < p.batch; b++ {
		x := make([]complex128, total)
		forEach(p.n, func(pos []int64, k int64) {
			if p.typ == backend.FFTC2R || p.typ == backend.FFTZ2D {
				if pos[len(pos)-1] >= p.inDims[len(pos)-1] {
					return // filled from the mirror below
				}
			}
			x[k] = load(src, p.in.index(pos, b), isz, p.typ)
		})
		if p.typ == backend.FFTC2R || p.typ == backend.FFTZ2D {
			mirror(x, p.n)
		}
		inputs[b] = x
	}
	for b, x := range inputs {
		transform(x, p.n, dir)
		forEach(p.outDims, func(pos []int64, _ int64) {
			k := linear(pos, p.n)
			store(dst, p.out.index(pos, int64(b)), osz, p.typ, x[k])
		})
	}
	return nil
}

// forEach calls f with every position of sizes dims (last axis fastest)
// and its linear index in dims.
func forEach(dims []int64, f func(pos []int64, k int64)) {
	pos := make([]int64, len(dims))
	total := product(dims)
	for k := int64(0); k < total; k++ {
		f(pos, k)
		for i := len(dims) - 1; i >= 0; i-- {
			pos[i]++
			if pos[i] < dims[i] {
				break
			}
			pos[i] = 0
		}
	}
}

func linear(pos, dims []int64) int64 {
	var k int64
	for i, p := range pos {
		k = k*dims[i] + p
	}
	return k
}

// mirror fills the spectrum's missing half from the Hermitian symmetry
// X[k] = conj(X[-k]) of a real signal's transform.
func mirror(x []complex128, n []int64) {
	half := n[len(n)-1]/2 + 1
	neg := make([]int64, len(n))
	forEach(n, func(pos []int64, k int64) {
		if pos[len(pos)-1] < half {
			return
		}
		for i, p := range pos {
			neg[i] = (n[i] - p) % n[i]
		}
		x[k] = complexConj(x[linear(neg, n)])
	})
	// The imaginary parts that a real signal's spectrum cannot have (at
	// self-mirrored positions) are ignored, as a C2R transform ignores them.
	forEach(n, func(pos []int64, k int64) {
		for i, p := range pos {
			neg[i] = (n[i] - p) % n[i]
		}
		if linear(neg, n) == k {
			x[k] = complex(real(x[k]), 0)
		}
	})
}

func complexConj(c complex128) complex128 { return complex(real(c), -imag(c)) }

// transform does the multi-dimensional transform of x (sizes n, last axis
// fastest) in place: gonum's 1D transform along each axis.
func transform(x []complex128, n []int64, dir backend.FFTDirection) {
	stride := int64(1)
	for axis := len(n) - 1; axis >= 0; axis-- {
		size := n[axis]
		f := fourier.NewCmplxFFT(int(size))
		line := make([]complex128, size)
		outer := int64(len(x)) / (size * stride)
		for o := int64(0); o < outer; o++ {
			for s := int64(0); s < stride; s++ {
				base := o*size*stride + s
				for i := int64(0); i < size; i++ {
					line[i] = x[base+i*stride]
				}
				if dir == backend.FFTForward {
					f.Coefficients(line, line)
				} else {
					f.Sequence(line, line)
				}
				for i := int64(0); i < size; i++ {
					x[base+i*stride] = line[i]
				}
			}
		}
		stride *= size
	}
}

func load(b []byte, i, size int64, t backend.FFTType) complex128 {
	o := i * size
	switch size {
	case 4:
		return complex(float64(math.Float32frombits(binary.LittleEndian.Uint32(b[o:]))), 0)
	case 16:
		return complex(math.Float64frombits(binary.LittleEndian.Uint64(b[o:])), math.Float64frombits(binary.LittleEndian.Uint64(b[o+8:])))
	}
	if t == backend.FFTD2Z { // 8 bytes: a double (D2Z input) or a complex64
		return complex(math.Float64frombits(binary.LittleEndian.Uint64(b[o:])), 0)
	}
	return complex(float64(math.Float32frombits(binary.LittleEndian.Uint32(b[o:]))), float64(math.Float32frombits(binary.LittleEndian.Uint32(b[o+4:]))))
}

func store(b []byte, i, size int64, t backend.FFTType, v complex128) {
	o := i * size
	switch size {
	case 4:
		binary.LittleEndian.PutUint32(b[o:], math.Float32bits(float32(real(v))))
	case 16:
		binary.LittleEndian.PutUint64(b[o:], math.Float64bits(real(v)))
		binary.LittleEndian.PutUint64(b[o+8:], math.Float64bits(imag(v)))
	default:
		if t == backend.FFTZ2D {
			binary.LittleEndian.PutUint64(b[o:], math.Float64bits(real(v)))
			return
		}
		binary.LittleEndian.PutUint32(b[o:], math.Float32bits(float32(real(v))))
		binary.LittleEndian.PutUint32(b[o+4:], math.Float32bits(float32(imag(v))))
	}
}
