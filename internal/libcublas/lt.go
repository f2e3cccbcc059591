//go:build linux && (amd64 || arm64)

package libcublas

import (
	"runtime"
	"unsafe"

	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/dl"
	"github.com/nocgo/cuda/internal/symtab"
	"github.com/nocgo/cuda/loader"
)

type ltSym int

const (
	ltCreate ltSym = iota
	ltDestroy
	ltGetVersion
	ltGetStatusString
	ltMatmulDescCreate
	ltMatmulDescDestroy
	ltMatmulDescSetAttribute
	ltMatrixLayoutCreate
	ltMatrixLayoutDestroy
	ltMatrixLayoutSetAttribute
	ltPreferenceCreate
	ltPreferenceDestroy
	ltPreferenceSetAttribute
	ltAlgoGetHeuristic
	ltMatmul
	numLtSyms
)

var ltNames = [numLtSyms]string{
	ltCreate:                   "cublasLtCreate",
	ltDestroy:                  "cublasLtDestroy",
	ltGetVersion:               "cublasLtGetVersion",
	ltGetStatusString:          "cublasLtGetStatusString",
	ltMatmulDescCreate:         "cublasLtMatmulDescCreate",
	ltMatmulDescDestroy:        "cublasLtMatmulDescDestroy",
	ltMatmulDescSetAttribute:   "cublasLtMatmulDescSetAttribute",
	ltMatrixLayoutCreate:       "cublasLtMatrixLayoutCreate",
	ltMatrixLayoutDestroy:      "cublasLtMatrixLayoutDestroy",
	ltMatrixLayoutSetAttribute: "cublasLtMatrixLayoutSetAttribute",
	ltPreferenceCreate:         "cublasLtMatmulPreferenceCreate",
	ltPreferenceDestroy:        "cublasLtMatmulPreferenceDestroy",
	ltPreferenceSetAttribute:   "cublasLtMatmulPreferenceSetAttribute",
	ltAlgoGetHeuristic:         "cublasLtMatmulAlgoGetHeuristic",
	ltMatmul:                   "cublasLtMatmul",
}

// LtLib is the real cuBLASLt: libcublasLt through internal/dl.
type LtLib struct {
	lib  *loader.Library
	syms *symtab.Table // the entry points, resolved on first use
}

var _ backend.CUBLASLt = (*LtLib)(nil)

// The heuristic result's layout is cublasLt.h's.
var _ = [1]struct{}{}[unsafe.Sizeof(backend.LtHeuristicResult{})-96]

// OpenLt opens libcublasLt through package loader.
func OpenLt() (*LtLib, error) {
	lib, err := loader.Open(loader.CUBLASLt)
	if err != nil {
		return nil, err
	}
	return &LtLib{lib: lib, syms: symtab.InLibrary(lib, int(numLtSyms), func(i int) string { return ltNames[i] })}, nil
}

// Path returns the path of the library opened.
func (l *LtLib) Path() string { return l.lib.Path() }

func (l *LtLib) fn(s ltSym) (uintptr, error) {
	return l.syms.Get(int(s))
}

func (l *LtLib) check(op string, r uintptr) error {
	code := backend.BLASStatus(int32(uint32(r)))
	if code == 0 {
		return nil
	}
	text := backend.BLASStatusText[code]
	if p, err := l.fn(ltGetStatusString); err == nil {
		text = cString(dl.Call1(p, uintptr(uint32(code))))
	}
	return &backend.BLASError{Status: code, Op: op, Text: text}
}

// out calls s(T* out, args...) for the Create functions.
func (l *LtLib) create(s ltSym, a ...uintptr) (uintptr, error) {
	p, err := l.fn(s)
	if err != nil {
		return 0, err
	}
	out := new(uintptr) // heap: a is computed before the call
	var r uintptr
	switch len(a) {
	case 0:
		r = dl.Call1(p, uintptr(unsafe.Pointer(out)))
	case 2:
		r = dl.Call3(p, uintptr(unsafe.Pointer(out)), a[0], a[1])
	case 4:
		r = dl.Call5(p, uintptr(unsafe.Pointer(out)), a[0], a[1], a[2], a[3])
	}
	runtime.KeepAlive(out)
	return *out, l.check(ltNames[s], r)
}

func (l *LtLib) call1(s ltSym, h uintptr) error {
	p, err := l.fn(s)
	if err != nil {
		return err
	}
	return l.check(ltNames[s], dl.Call1(p, h))
}

// setAttr calls s(obj, attr, const void* buf, size_t size).
func (l *LtLib) setAttr(s ltSym, obj uintptr, attr int32, v []byte) error {
	p, err := l.fn(s)
	if err != nil {
		return err
	}
	if len(v) == 0 {
		return &backend.BLASError{Status: backend.BLASInvalidValue, Op: ltNames[s], Text: backend.BLASStatusText[backend.BLASInvalidValue], Detail: "empty attribute value"}
	}
	r := dl.Call4(p, obj, uintptr(attr), uintptr(unsafe.Pointer(unsafe.SliceData(v))), uintptr(len(v)))
	runtime.KeepAlive(v)
	return l.check(ltNames[s], r)
}

// Create is cublasLtCreate(cublasLtHandle_t*).
func (l *LtLib) Create() (uintptr, error) { return l.create(ltCreate) }

// Destroy is cublasLtDestroy(cublasLtHandle_t).
func (l *LtLib) Destroy(h uintptr) error { return l.call1(ltDestroy, h) }

// Version is cublasLtGetVersion(), 0 when the library lacks it.
func (l *LtLib) Version() int {
	p, err := l.fn(ltGetVersion)
	if err != nil {
		return 0
	}
	return int(dl.Call0(p))
}

// MatmulDescCreate is cublasLtMatmulDescCreate(desc*, cublasComputeType_t, cudaDataType_t scaleType).
func (l *LtLib) MatmulDescCreate(compute backend.BLASComputeType, scale backend.DataType) (uintptr, error) {
	return l.create(ltMatmulDescCreate, uintptr(compute), uintptr(scale))
}

// MatmulDescDestroy is cublasLtMatmulDescDestroy.
func (l *LtLib) MatmulDescDestroy(d uintptr) error { return l.call1(ltMatmulDescDestroy, d) }

// MatmulDescSetAttribute is cublasLtMatmulDescSetAttribute.
func (l *LtLib) MatmulDescSetAttribute(d uintptr, attr backend.LtMatmulDescAttr, v []byte) error {
	return l.setAttr(ltMatmulDescSetAttribute, d, int32(attr), v)
}

// MatrixLayoutCreate is cublasLtMatrixLayoutCreate(layout*, cudaDataType,
// uint64_t rows, uint64_t cols, int64_t ld).
func (l *LtLib) MatrixLayoutCreate(t backend.DataType, rows, cols uint64, ld int64) (uintptr, error) {
	return l.create(ltMatrixLayoutCreate, uintptr(t), uintptr(rows), uintptr(cols), uintptr(ld))
}

// MatrixLayoutDestroy is cublasLtMatrixLayoutDestroy.
func (l *LtLib) MatrixLayoutDestroy(m uintptr) error { return l.call1(ltMatrixLayoutDestroy, m) }

// MatrixLayoutSetAttribute is cublasLtMatrixLayoutSetAttribute.
func (l *LtLib) MatrixLayoutSetAttribute(m uintptr, attr backend.LtLayoutAttr, v []byte) error {
	return l.setAttr(ltMatrixLayoutSetAttribute, m, int32(attr), v)
}

// PreferenceCreate is cublasLtMatmulPreferenceCreate.
func (l *LtLib) PreferenceCreate() (uintptr, error) { return l.create(ltPreferenceCreate) }

// PreferenceDestroy is cublasLtMatmulPreferenceDestroy.
func (l *LtLib) PreferenceDestroy(p uintptr) error { return l.call1(ltPreferenceDestroy, p) }

// PreferenceSetAttribute is cublasLtMatmulPreferenceSetAttribute.
func (l *LtLib) PreferenceSetAttribute(p uintptr, attr backend.LtPreferenceAttr, v []byte) error {
	return l.setAttr(ltPreferenceSetAttribute, p, int32(attr), v)
}

// AlgoGetHeuristic is cublasLtMatmulAlgoGetHeuristic(h, desc, A, B, C, D,
// pref, int requested, cublasLtMatmulHeuristicResult_t results[], int* returned).
func (l *LtLib) AlgoGetHeuristic(h, desc, a, b, c, d, pref uintptr, results []backend.LtHeuristicResult) (int, error) {
	const op = "cublasLtMatmulAlgoGetHeuristic"
	p, err := l.fn(ltAlgoGetHeuristic)
	if err != nil {
		return 0, err
	}
	if len(results) == 0 || len(results) > 1<<16 {
		return 0, &backend.BLASError{Status: backend.BLASInvalidValue, Op: op, Text: backend.BLASStatusText[backend.BLASInvalidValue], Detail: "requestedAlgoCount out of range"}
	}
	n := new(int32)
	r := dl.Call10(p, h, desc, a, b, c, d, pref, uintptr(len(results)),
		uintptr(unsafe.Pointer(unsafe.SliceData(results))), uintptr(unsafe.Pointer(n)))
	runtime.KeepAlive(results)
	runtime.KeepAlive(n)
	if err := l.check(op, r); err != nil {
		return 0, err
	}
	return int(*n), nil
}

// Matmul is cublasLtMatmul(h, desc, const void* alpha, A, Adesc, B, Bdesc,
// const void* beta, C, Cdesc, D, Ddesc, const cublasLtMatmulAlgo_t* algo,
// void* workspace, size_t workspaceSize, cudaStream_t).
func (l *LtLib) Matmul(h, desc uintptr, scale backend.DataType, alpha backend.BLASScalar, a, adesc, b, bdesc uintptr,
	beta backend.BLASScalar, c, cdesc, d, ddesc uintptr, algo *backend.LtAlgo, workspace, workspaceSize, s uintptr) error {
	p, err := l.fn(ltMatmul)
	if err != nil {
		return err
	}
	var sc scalars
	o := sc.base()
	am, bm := sc.setData(0, scale, alpha), sc.setData(1, scale, beta)
	r := dl.Call16(p, h, desc, alpha.Ptr|am&uintptr(unsafe.Pointer(&sc[o])), a, adesc, b, bdesc,
		beta.Ptr|bm&uintptr(unsafe.Pointer(&sc[o+2])), c, cdesc, d, ddesc, uintptr(unsafe.Pointer(algo)), workspace, workspaceSize, s)
	runtime.KeepAlive(&sc)
	runtime.KeepAlive(algo)
	return l.check("cublasLtMatmul", r)
}
