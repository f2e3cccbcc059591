//go:build linux && (amd64 || arm64)

package libcublas

import (
	"runtime"
	"unsafe"

	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/dl"
)

// The heuristic result's layout is cublasLt.h's.
var _ = [1]struct{}{}[unsafe.Sizeof(backend.LtHeuristicResult{})-96]

// check turns a cublasStatus_t from s into nil or a *BLASError with
// cuBLASLt's text.
func (l *LtLib) check(s ltSym, r uintptr) error {
	code := backend.BLASStatus(int32(uint32(r)))
	if code == 0 {
		return nil
	}
	text := backend.BLASStatusText[code]
	if p, err := l.fn(ltSymGetStatusString); err == nil {
		text = cString(dl.Call1(p, uintptr(uint32(code))))
	}
	return &backend.BLASError{Status: code, Op: ltSymEntries[s].Name, Text: text}
}

// setAttr calls s(obj, attr, const void* buf, size_t size).
func (l *LtLib) setAttr(s ltSym, obj uintptr, attr int32, v []byte) error {
	p, err := l.fn(s)
	if err != nil {
		return err
	}
	if len(v) == 0 {
		return &backend.BLASError{Status: backend.BLASInvalidValue, Op: ltSymEntries[s].Name, Text: backend.BLASStatusText[backend.BLASInvalidValue], Detail: "empty attribute value"}
	}
	r := dl.Call4(p, obj, uintptr(attr), uintptr(unsafe.Pointer(unsafe.SliceData(v))), uintptr(len(v)))
	runtime.KeepAlive(v)
	return l.check(s, r)
}

// Version is cublasLtGetVersion(), 0 when the library lacks it.
func (l *LtLib) Version() int {
	p, err := l.fn(ltSymGetVersion)
	if err != nil {
		return 0
	}
	return int(dl.Call0(p))
}

// MatmulDescSetAttribute is cublasLtMatmulDescSetAttribute.
func (l *LtLib) MatmulDescSetAttribute(d uintptr, attr backend.LtMatmulDescAttr, v []byte) error {
	return l.setAttr(ltSymMatmulDescSetAttribute, d, int32(attr), v)
}

// MatrixLayoutSetAttribute is cublasLtMatrixLayoutSetAttribute.
func (l *LtLib) MatrixLayoutSetAttribute(m uintptr, attr backend.LtLayoutAttr, v []byte) error {
	return l.setAttr(ltSymMatrixLayoutSetAttribute, m, int32(attr), v)
}

// PreferenceSetAttribute is cublasLtMatmulPreferenceSetAttribute.
func (l *LtLib) PreferenceSetAttribute(p uintptr, attr backend.LtPreferenceAttr, v []byte) error {
	return l.setAttr(ltSymMatmulPreferenceSetAttribute, p, int32(attr), v)
}

// AlgoGetHeuristic is cublasLtMatmulAlgoGetHeuristic(h, desc, A, B, C, D,
// pref, int requested, cublasLtMatmulHeuristicResult_t results[], int* returned).
func (l *LtLib) AlgoGetHeuristic(h, desc, a, b, c, d, pref uintptr, results []backend.LtHeuristicResult) (int, error) {
	const s = ltSymMatmulAlgoGetHeuristic
	p, err := l.fn(s)
	if err != nil {
		return 0, err
	}
	if len(results) == 0 || len(results) > 1<<16 {
		return 0, &backend.BLASError{Status: backend.BLASInvalidValue, Op: ltSymEntries[s].Name, Text: backend.BLASStatusText[backend.BLASInvalidValue], Detail: "requestedAlgoCount out of range"}
	}
	n := new(int32)
	r := dl.Call10(p, h, desc, a, b, c, d, pref, uintptr(len(results)),
		uintptr(unsafe.Pointer(unsafe.SliceData(results))), uintptr(unsafe.Pointer(n)))
	runtime.KeepAlive(results)
	runtime.KeepAlive(n)
	if err := l.check(s, r); err != nil {
		return 0, err
	}
	return int(*n), nil
}

// Matmul is cublasLtMatmul(h, desc, const void* alpha, A, Adesc, B, Bdesc,
// const void* beta, C, Cdesc, D, Ddesc, const cublasLtMatmulAlgo_t* algo,
// void* workspace, size_t workspaceSize, cudaStream_t).
func (l *LtLib) Matmul(h, desc uintptr, scale backend.DataType, alpha backend.BLASScalar, a, adesc, b, bdesc uintptr,
	beta backend.BLASScalar, c, cdesc, d, ddesc uintptr, algo *backend.LtAlgo, workspace, workspaceSize, s uintptr) error {
	p, err := l.fn(ltSymMatmul)
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
	return l.check(ltSymMatmul, r)
}
