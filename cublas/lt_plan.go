package cublas

import (
	"encoding/binary"
	"errors"
	"sync"

	"github.com/nocgo/cuda/driver/backend"
)

// A plan is what cuBLASLt needs for one kind of product: its operation
// descriptor, the four matrix layouts, the preference (the workspace
// allowed) and the algorithm the heuristics chose. An Lt keeps its plans
// until Close, so that a product repeated (a training step, a layer per
// token) costs one cublasLtMatmul, as in C code that prepares its
// descriptors once.

// planKey is what a plan depends on.
type planKey struct {
	at, ct             backend.DataType
	ta, tb             Op
	m, n, k            int
	lda, ldb, ldc, ldd int
	compute            Compute
	epi                Epilogue
	biasType           backend.DataType // -1: none
	ws                 uintptr          // the workspace's size
	batch              int              // 0: one product
	st                 Strides
}

// maxPlans bounds the plans an Lt keeps; past it, a product of a new kind
// plans, runs and destroys its plan.
const maxPlans = 256

type plan struct {
	mu             sync.Mutex // held while the bias pointer is set and the product queued
	desc           uintptr
	la, lb, lc, ld uintptr
	pref           uintptr
	algo           backend.LtAlgo
	attr           [8]byte // the bias pointer's bytes, for MatmulDescSetAttribute
	kept           bool    // in the cache (else destroyed after its call)
	destroyed      bool
}

type planCache struct {
	mu    sync.Mutex
	plans map[planKey]*plan
}

// get returns the plan for key, making it (with the handle's context
// bound by the caller) the first time.
func (c *planCache) get(l *Lt, key planKey) (*plan, error) {
	c.mu.Lock()
	p := c.plans[key]
	c.mu.Unlock()
	if p != nil {
		return p, nil
	}
	p, err := newPlan(l, key)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if q := c.plans[key]; q != nil { // made meanwhile by another call
		_ = p.destroy(l.lt)
		return q, nil
	}
	if len(c.plans) < maxPlans {
		if c.plans == nil {
			c.plans = map[planKey]*plan{}
		}
		c.plans[key] = p
		p.kept = true
	}
	return p, nil
}

// destroy destroys every plan; those it could not destroy stay, for Close
// to retry.
func (c *planCache) destroy(lt backend.CUBLASLt) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	var errs []error
	for k, p := range c.plans {
		if err := p.destroy(lt); err != nil {
			errs = append(errs, err)
			continue
		}
		delete(c.plans, k)
	}
	return errors.Join(errs...)
}

func u32(v uint32) []byte { return binary.LittleEndian.AppendUint32(nil, v) }
func u64(v uint64) []byte { return binary.LittleEndian.AppendUint64(nil, v) }
func i32(v int32) []byte  { return u32(uint32(v)) }
func stored(op Op, rows, cols int) (uint64, uint64) {
	if op == NoTrans {
		return uint64(rows), uint64(cols)
	}
	return uint64(cols), uint64(rows)
}

// newPlan makes the descriptors of key's product and asks the heuristics
// for its algorithm; on failure it destroys what it made.
func newPlan(l *Lt, key planKey) (p *plan, err error) {
	lt := l.lt
	p = &plan{}
	defer func() {
		if err != nil {
			_ = p.destroy(lt)
			p = nil
		}
	}()
	if p.desc, err = lt.MatmulDescCreate(backend.BLASComputeType(key.compute), backend.DataR32F); err != nil {
		return
	}
	set := func(attr backend.LtMatmulDescAttr, v []byte) {
		if err == nil {
			err = lt.MatmulDescSetAttribute(p.desc, attr, v)
		}
	}
	set(backend.LtDescTransA, i32(int32(key.ta)))
	set(backend.LtDescTransB, i32(int32(key.tb)))
	if key.epi != NoEpilogue {
		set(backend.LtDescEpilogue, u32(uint32(key.epi)))
	}
	if key.biasType != -1 {
		set(backend.LtDescBiasDataType, i32(int32(key.biasType)))
	}
	if err != nil {
		return
	}
	ar, ac := stored(key.ta, key.m, key.k)
	br, bc := stored(key.tb, key.k, key.n)
	if p.la, err = lt.MatrixLayoutCreate(key.at, ar, ac, int64(key.lda)); err != nil {
		return
	}
	if p.lb, err = lt.MatrixLayoutCreate(key.at, br, bc, int64(key.ldb)); err != nil {
		return
	}
	if p.lc, err = lt.MatrixLayoutCreate(key.ct, uint64(key.m), uint64(key.n), int64(key.ldc)); err != nil {
		return
	}
	if p.ld, err = lt.MatrixLayoutCreate(key.ct, uint64(key.m), uint64(key.n), int64(key.ldd)); err != nil {
		return
	}
	if key.batch > 1 {
		for _, l := range []struct {
			h      uintptr
			stride int
		}{{p.la, key.st.A}, {p.lb, key.st.B}, {p.lc, key.st.C}, {p.ld, key.st.C}} {
			if err = lt.MatrixLayoutSetAttribute(l.h, backend.LtLayoutBatchCount, i32(int32(key.batch))); err != nil {
				return
			}
			if err = lt.MatrixLayoutSetAttribute(l.h, backend.LtLayoutStridedOffset, u64(uint64(l.stride))); err != nil {
				return
			}
		}
	}
	if p.pref, err = lt.PreferenceCreate(); err != nil {
		return
	}
	if err = lt.PreferenceSetAttribute(p.pref, backend.LtPrefMaxWorkspaceBytes, u64(uint64(key.ws))); err != nil {
		return
	}
	var res [1]backend.LtHeuristicResult
	n, err := lt.AlgoGetHeuristic(l.h, p.desc, p.la, p.lb, p.lc, p.ld, p.pref, res[:])
	if err != nil {
		return
	}
	if n < 1 || res[0].State != 0 {
		err = &backend.BLASError{Status: backend.BLASNotSupported, Op: "cublasLtMatmulAlgoGetHeuristic",
			Text: backend.BLASStatusText[backend.BLASNotSupported], Detail: "no algorithm for this product"}
		return
	}
	p.algo = res[0].Algo
	return p, nil
}

// run queues the product on stream s.
func (p *plan) run(l *Lt, alpha float32, a, b uintptr, beta float32, c, d uintptr, cfg MatmulConfig, s uintptr) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if cfg.Bias.ptr != 0 {
		binary.LittleEndian.PutUint64(p.attr[:], uint64(cfg.Bias.ptr))
		if err := l.lt.MatmulDescSetAttribute(p.desc, backend.LtDescBiasPointer, p.attr[:]); err != nil {
			return err
		}
	}
	var ws, wsn uintptr
	if cfg.Workspace != nil && cfg.Workspace.Len() > 0 {
		ws, wsn = cfg.Workspace.Ptr(), uintptr(cfg.Workspace.Len())
	}
	err := l.lt.Matmul(l.h, p.desc, backend.DataR32F, backend.BLASScalar{Re: float64(alpha)}, a, p.la, b, p.lb,
		backend.BLASScalar{Re: float64(beta)}, c, p.lc, d, p.ld, &p.algo, ws, wsn, s)
	if !p.kept {
		if derr := p.destroy(l.lt); err == nil {
			err = derr
		}
	}
	return err
}

// destroy destroys the plan's descriptors; a second call does nothing.
func (p *plan) destroy(lt backend.CUBLASLt) error {
	if p.destroyed {
		return nil
	}
	var errs []error
	drop := func(h *uintptr, f func(uintptr) error) {
		if *h == 0 {
			return
		}
		if err := f(*h); err != nil {
			errs = append(errs, err)
			return
		}
		*h = 0
	}
	drop(&p.pref, lt.PreferenceDestroy)
	drop(&p.ld, lt.MatrixLayoutDestroy)
	drop(&p.lc, lt.MatrixLayoutDestroy)
	drop(&p.lb, lt.MatrixLayoutDestroy)
	drop(&p.la, lt.MatrixLayoutDestroy)
	drop(&p.desc, lt.MatmulDescDestroy)
	if len(errs) == 0 {
		p.destroyed = true
	}
	return errors.Join(errs...)
}
