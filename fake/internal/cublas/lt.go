package cublas

import (
	"encoding/binary"
	"math"
	"sync"

	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/fake/internal/ondevice"
)

// LtVersion is the cuBLASLt version the fake reports (that of cuBLAS).
const LtVersion = Version

// fakeAlgo marks the one algorithm the fake's heuristics return.
const fakeAlgo = 0x6f676c612d656b61 // "ake-algo"

// Lt is the fake cuBLASLt of one fake driver.
type Lt struct {
	q ondevice.Queue

	mu      sync.Mutex
	next    uintptr
	handles map[uintptr]bool
	descs   map[uintptr]*ltDesc
	layouts map[uintptr]*ltLayout
	prefs   map[uintptr]*ltPref
}

var _ backend.CUBLASLt = (*Lt)(nil)

// NewLt returns the fake cuBLASLt that queues its work on q.
func NewLt(q ondevice.Queue) *Lt {
	return &Lt{q: q, next: 0x7a000000, handles: map[uintptr]bool{}, descs: map[uintptr]*ltDesc{},
		layouts: map[uintptr]*ltLayout{}, prefs: map[uintptr]*ltPref{}}
}

type ltDesc struct {
	compute  backend.BLASComputeType
	scale    backend.DataType
	ptrMode  int32
	ta, tb   backend.BLASOp
	epilogue backend.LtEpilogue
	bias     uintptr
	biasType backend.DataType // -1: D's type
}

type ltLayout struct {
	t          backend.DataType
	rows, cols uint64
	ld         int64
	order      int32
	batch      int32
	stride     int64
}

type ltPref struct{ maxWorkspace uint64 }

func (l *Lt) newID() uintptr { l.next += 0x40; return l.next }

func (l *Lt) Create() (uintptr, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	h := l.newID()
	l.handles[h] = true
	return h, nil
}

func (l *Lt) Destroy(h uintptr) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.handles[h] {
		return blasErr("cublasLtDestroy", backend.BLASNotInitialized, "handle %#x is not a live cuBLASLt handle", h)
	}
	delete(l.handles, h)
	return nil
}

func (l *Lt) Version() int { return LtVersion }

func (l *Lt) MatmulDescCreate(compute backend.BLASComputeType, scale backend.DataType) (uintptr, error) {
	if compute.ScaleType() < 0 || scale.Size() == 0 {
		return 0, invalid("cublasLtMatmulDescCreate", "compute type %d, scale type %d", compute, scale)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	d := l.newID()
	l.descs[d] = &ltDesc{compute: compute, scale: scale, epilogue: backend.LtEpilogueDefault, biasType: -1}
	return d, nil
}

func (l *Lt) MatmulDescDestroy(d uintptr) error {
	return l.drop("cublasLtMatmulDescDestroy", d, func() bool { _, ok := l.descs[d]; delete(l.descs, d); return ok })
}

func (l *Lt) drop(op string, id uintptr, del func() bool) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !del() {
		return invalid(op, "%#x is not a live descriptor", id)
	}
	return nil
}

func int32Of(op string, v []byte) (int32, error) {
	if len(v) != 4 {
		return 0, invalid(op, "attribute of %d bytes, want 4", len(v))
	}
	return int32(binary.LittleEndian.Uint32(v)), nil
}

func int64Of(op string, v []byte) (int64, error) {
	if len(v) != 8 {
		return 0, invalid(op, "attribute of %d bytes, want 8", len(v))
	}
	return int64(binary.LittleEndian.Uint64(v)), nil
}

func (l *Lt) MatmulDescSetAttribute(d uintptr, attr backend.LtMatmulDescAttr, v []byte) error {
	const op = "cublasLtMatmulDescSetAttribute"
	l.mu.Lock()
	defer l.mu.Unlock()
	desc := l.descs[d]
	if desc == nil {
		return invalid(op, "%#x is not a live matmul descriptor", d)
	}
	switch attr {
	case backend.LtDescTransA, backend.LtDescTransB, backend.LtDescEpilogue, backend.LtDescBiasDataType,
		backend.LtDescPointerMode, backend.LtDescComputeType, backend.LtDescScaleType:
		x, err := int32Of(op, v)
		if err != nil {
			return err
		}
		switch attr {
		case backend.LtDescTransA, backend.LtDescTransB:
			if !validOp(backend.BLASOp(x)) {
				return invalid(op, "operation %d", x)
			}
			if attr == backend.LtDescTransA {
				desc.ta = backend.BLASOp(x)
			} else {
				desc.tb = backend.BLASOp(x)
			}
		case backend.LtDescEpilogue:
			desc.epilogue = backend.LtEpilogue(x)
		case backend.LtDescBiasDataType:
			desc.biasType = backend.DataType(x)
		case backend.LtDescPointerMode:
			if x != 0 && x != 1 {
				return invalid(op, "pointer mode %d", x)
			}
			desc.ptrMode = x
		case backend.LtDescComputeType:
			desc.compute = backend.BLASComputeType(x)
		case backend.LtDescScaleType:
			desc.scale = backend.DataType(x)
		}
	case backend.LtDescBiasPointer:
		x, err := int64Of(op, v)
		if err != nil {
			return err
		}
		desc.bias = uintptr(x)
	default:
		return invalid(op, "attribute %d is not one the fake cuBLASLt knows", attr)
	}
	return nil
}

func (l *Lt) MatrixLayoutCreate(t backend.DataType, rows, cols uint64, ld int64) (uintptr, error) {
	if t.Size() == 0 || rows > math.MaxInt32 || cols > math.MaxInt32 || ld < 0 || (rows > 0 && ld < int64(rows)) {
		return 0, invalid("cublasLtMatrixLayoutCreate", "type %d, %d×%d, ld %d", t, rows, cols, ld)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	id := l.newID()
	l.layouts[id] = &ltLayout{t: t, rows: rows, cols: cols, ld: ld, batch: 1}
	return id, nil
}

func (l *Lt) MatrixLayoutDestroy(id uintptr) error {
	return l.drop("cublasLtMatrixLayoutDestroy", id, func() bool { _, ok := l.layouts[id]; delete(l.layouts, id); return ok })
}

func (l *Lt) MatrixLayoutSetAttribute(id uintptr, attr backend.LtLayoutAttr, v []byte) error {
	const op = "cublasLtMatrixLayoutSetAttribute"
	l.mu.Lock()
	defer l.mu.Unlock()
	lay := l.layouts[id]
	if lay == nil {
		return invalid(op, "%#x is not a live matrix layout", id)
	}
	switch attr {
	case backend.LtLayoutOrder, backend.LtLayoutBatchCount:
		x, err := int32Of(op, v)
		if err != nil {
			return err
		}
		if attr == backend.LtLayoutOrder {
			lay.order = x
		} else {
			if x < 1 {
				return invalid(op, "batch count %d", x)
			}
			lay.batch = x
		}
	case backend.LtLayoutStridedOffset:
		x, err := int64Of(op, v)
		if err != nil {
			return err
		}
		lay.stride = x
	default:
		return invalid(op, "attribute %d is not one the fake cuBLASLt knows", attr)
	}
	return nil
}

func (l *Lt) PreferenceCreate() (uintptr, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	id := l.newID()
	l.prefs[id] = &ltPref{}
	return id, nil
}

func (l *Lt) PreferenceDestroy(id uintptr) error {
	return l.drop("cublasLtMatmulPreferenceDestroy", id, func() bool { _, ok := l.prefs[id]; delete(l.prefs, id); return ok })
}

func (l *Lt) PreferenceSetAttribute(id uintptr, attr backend.LtPreferenceAttr, v []byte) error {
	const op = "cublasLtMatmulPreferenceSetAttribute"
	l.mu.Lock()
	defer l.mu.Unlock()
	p := l.prefs[id]
	if p == nil {
		return invalid(op, "%#x is not a live preference", id)
	}
	if attr != backend.LtPrefMaxWorkspaceBytes {
		return invalid(op, "attribute %d is not one the fake cuBLASLt knows", attr)
	}
	x, err := int64Of(op, v)
	if err != nil {
		return err
	}
	p.maxWorkspace = uint64(x)
	return nil
}

// ltOp is one matmul's state, copied out of the descriptors.
type ltOp struct {
	desc       ltDesc
	a, b, c, d ltLayout
	m, n, k    int
}

// plan checks a matmul's descriptors: INVALID_VALUE for what does not fit
// together, NOT_SUPPORTED for what the fake (and, for these types, cuBLASLt)
// has no algorithm for.
func (l *Lt) plan(op string, h, desc, a, b, c, d uintptr) (ltOp, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var o ltOp
	if !l.handles[h] {
		return o, blasErr(op, backend.BLASNotInitialized, "handle %#x is not a live cuBLASLt handle", h)
	}
	ds, la, lb, lc, ld := l.descs[desc], l.layouts[a], l.layouts[b], l.layouts[c], l.layouts[d]
	if ds == nil || la == nil || lb == nil || lc == nil || ld == nil {
		return o, invalid(op, "a descriptor or layout is not live")
	}
	o = ltOp{desc: *ds, a: *la, b: *lb, c: *lc, d: *ld}
	ar, ac := dims(o.desc.ta, int(la.rows), int(la.cols))
	br, bc := dims(o.desc.tb, int(lb.rows), int(lb.cols))
	_ = ar
	o.m, o.k = int(ld.rows), ac
	o.n = int(ld.cols)
	if ar != o.m || br != o.k || bc != o.n || lc.rows != ld.rows || lc.cols != ld.cols {
		return o, invalid(op, "op(A) %d×%d, op(B) %d×%d, C %d×%d, D %d×%d do not fit", ar, ac, br, bc, lc.rows, lc.cols, ld.rows, ld.cols)
	}
	if la.batch != lb.batch || la.batch != lc.batch || la.batch != ld.batch {
		return o, invalid(op, "batch counts %d, %d, %d, %d differ", la.batch, lb.batch, lc.batch, ld.batch)
	}
	if la.order != 0 || lb.order != 0 || lc.order != 0 || ld.order != 0 {
		return o, blasErr(op, backend.BLASNotSupported, "the fake cuBLASLt computes column-major layouts only")
	}
	if lc.t != ld.t {
		return o, blasErr(op, backend.BLASNotSupported, "C type %d differs from D type %d", lc.t, ld.t)
	}
	if la.t != lb.t || exTypes(op, la.t, lb.t, ld.t, o.desc.compute) != nil || o.desc.scale != backend.DataR32F || la.t == backend.DataR64F {
		return o, blasErr(op, backend.BLASNotSupported, "A %d, B %d, D %d, compute %d, scale %d", la.t, lb.t, ld.t, o.desc.compute, o.desc.scale)
	}
	switch o.desc.epilogue {
	case backend.LtEpilogueDefault, backend.LtEpilogueReLU, backend.LtEpilogueGELU:
	case backend.LtEpilogueBias, backend.LtEpilogueReLUBias, backend.LtEpilogueGELUBias:
		bt := o.desc.biasType
		if bt == -1 {
			bt = ld.t
		}
		if bt != ld.t {
			// The H200's cuBLASLt (13.0) answers INVALID_VALUE to a float32
			// bias with a BFloat16 D, and has no other mix outside fp8.
			return o, invalid(op, "bias type %d with D type %d: the bias is of D's type", bt, ld.t)
		}
		o.desc.biasType = bt
	default:
		return o, blasErr(op, backend.BLASNotSupported, "epilogue %d", o.desc.epilogue)
	}
	return o, nil
}

func (l *Lt) AlgoGetHeuristic(h, desc, a, b, c, d, pref uintptr, results []backend.LtHeuristicResult) (int, error) {
	const op = "cublasLtMatmulAlgoGetHeuristic"
	if len(results) == 0 {
		return 0, invalid(op, "requestedAlgoCount 0")
	}
	l.mu.Lock()
	_, ok := l.prefs[pref]
	l.mu.Unlock()
	if !ok {
		return 0, invalid(op, "preference %#x is not live", pref)
	}
	if _, err := l.plan(op, h, desc, a, b, c, d); err != nil {
		return 0, err
	}
	results[0] = backend.LtHeuristicResult{Algo: backend.LtAlgo{fakeAlgo}, WavesCount: 1}
	return 1, nil
}

func (l *Lt) Matmul(h, desc uintptr, scale backend.DataType, alpha backend.BLASScalar, a, adesc, b, bdesc uintptr,
	beta backend.BLASScalar, c, cdesc, d, ddesc uintptr, algo *backend.LtAlgo, workspace, workspaceSize, s uintptr) error {
	const op = "cublasLtMatmul"
	o, err := l.plan(op, h, desc, adesc, bdesc, cdesc, ddesc)
	if err != nil {
		return err
	}
	if algo != nil && algo[0] != fakeAlgo {
		return invalid(op, "algo is not one the heuristics returned")
	}
	if scale != o.desc.scale {
		return invalid(op, "scale type %d, the descriptor's is %d", scale, o.desc.scale)
	}
	if (o.desc.ptrMode == 1) != (alpha.Ptr != 0) || (o.desc.ptrMode == 1) != (beta.Ptr != 0) {
		return invalid(op, "a scalar does not match the descriptor's pointer mode (%d)", o.desc.ptrMode)
	}
	if o.desc.biasType != -1 && o.desc.bias == 0 {
		return invalid(op, "a bias epilogue with no bias pointer")
	}
	if o.m == 0 || o.n == 0 {
		return nil
	}
	if _, err := l.q.StreamDevice(s); err != nil {
		return blasErr(op, backend.BLASExecutionFailed, "stream %#x: %v", s, err)
	}
	work := guard(func(mem ondevice.Memory) error {
		al, err := scalarOf(mem, alpha, backend.DataR32F)
		if err != nil {
			return err
		}
		be, err := scalarOf(mem, beta, backend.DataR32F)
		if err != nil {
			return err
		}
		var bias []float32
		if o.desc.biasType != -1 {
			if bias, err = toF32(mem, o.desc.bias, o.m, o.desc.biasType, nil); err != nil {
				return err
			}
		}
		for i := range int64(o.a.batch) {
			if err := o.one(mem, float32(al), float32(be), bias,
				uintptr(int64(a)+i*o.a.stride*int64(o.a.t.Size())), uintptr(int64(b)+i*o.b.stride*int64(o.b.t.Size())),
				uintptr(int64(c)+i*o.c.stride*int64(o.c.t.Size())), uintptr(int64(d)+i*o.d.stride*int64(o.d.t.Size()))); err != nil {
				return err
			}
		}
		return nil
	})
	if err := l.q.Enqueue(op, s, work); err != nil {
		return blasErr(op, backend.BLASExecutionFailed, "%v", err)
	}
	return nil
}

// one computes one matrix of the batch: D = epilogue(alpha*op(A)op(B) +
// beta*C + bias).
func (o *ltOp) one(mem ondevice.Memory, al, be float32, bias []float32, a, b, c, d uintptr) error {
	g := shape{o.desc.ta, o.desc.tb, o.m, o.n, o.k, int(o.a.ld), int(o.b.ld), int(o.c.ld)}
	an, bn, cn := g.spans()
	if o.k == 0 || al == 0 {
		an, bn = 0, 0
	}
	var round func(float32) float32
	if o.desc.compute == backend.BLASCompute32FFastTF32 {
		round = tf32
	}
	af, err := toF32(mem, a, an, o.a.t, round)
	if err != nil {
		return err
	}
	bf, err := toF32(mem, b, bn, o.b.t, round)
	if err != nil {
		return err
	}
	cf := make([]float32, cn)
	if be != 0 {
		if cf, err = toF32(mem, c, cn, o.c.t, nil); err != nil {
			return err
		}
	}
	sgemm(g, al, af, bf, be, cf)
	dn := matLen(o.m, o.n, int(o.d.ld))
	draw, err := view(mem, d, dn, o.d.t.Size(), true)
	if err != nil {
		return err
	}
	ldc, ldd := int(o.c.ld), int(o.d.ld)
	for j := range o.n {
		for i := range o.m {
			v := cf[i+j*ldc]
			if bias != nil {
				v += bias[i]
			}
			switch o.desc.epilogue {
			case backend.LtEpilogueReLU, backend.LtEpilogueReLUBias:
				v = max(v, 0)
			case backend.LtEpilogueGELU, backend.LtEpilogueGELUBias:
				v = gelu(v)
			}
			switch o.d.t {
			case backend.DataR32F:
				f32s(draw)[i+j*ldd] = v
			default:
				u16s(draw)[i+j*ldd] = to16(o.d.t, v)
			}
		}
	}
	return nil
}

// gelu is the tanh approximation of GELU that cuBLASLt's epilogue computes:
// x/2 (1 + tanh(√(2/π) (x + 0.044715 x³))).
func gelu(x float32) float32 {
	v := float64(x)
	return float32(0.5 * v * (1 + math.Tanh(math.Sqrt(2/math.Pi)*(v+0.044715*v*v*v))))
}
