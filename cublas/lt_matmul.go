package cublas

import (
	"fmt"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/core"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/stream"
)

// Epilogue is what cuBLASLt does to each element of a product before it
// stores it (cublasLtEpilogue_t), fused into the same kernel.
type Epilogue uint32

// The epilogues offered. The bias forms add Bias element i to row i of
// every column, before the activation.
const (
	NoEpilogue   Epilogue = Epilogue(backend.LtEpilogueDefault)
	ReLU         Epilogue = Epilogue(backend.LtEpilogueReLU)
	GELU         Epilogue = Epilogue(backend.LtEpilogueGELU) // the tanh approximation
	BiasOnly     Epilogue = Epilogue(backend.LtEpilogueBias)
	ReLUBias     Epilogue = Epilogue(backend.LtEpilogueReLUBias)
	GELUBias     Epilogue = Epilogue(backend.LtEpilogueGELUBias)
	epilogueMask          = NoEpilogue | ReLU | GELU | BiasOnly
)

// String names the epilogue as cuBLASLt does, without its prefix.
func (e Epilogue) String() string {
	switch e {
	case NoEpilogue:
		return "DEFAULT"
	case ReLU:
		return "RELU"
	case GELU:
		return "GELU"
	case BiasOnly:
		return "BIAS"
	case ReLUBias:
		return "RELU_BIAS"
	case GELUBias:
		return "GELU_BIAS"
	}
	return fmt.Sprintf("Epilogue(%d)", uint32(e))
}

func (e Epilogue) valid() bool {
	switch e {
	case NoEpilogue, ReLU, GELU, BiasOnly, ReLUBias, GELUBias:
		return true
	}
	return false
}

func (e Epilogue) hasBias() bool { return e == BiasOnly || e == ReLUBias || e == GELUBias }

// Bias is the bias vector of a bias epilogue: a device buffer of D's
// element type (cuBLASLt refuses others outside its fp8 products), one
// element per row of D. It is a view: it owns
// nothing, and the buffer must stay open until the stream has run the
// product. The zero Bias is none.
type Bias struct {
	ptr    uintptr
	n      int
	t      backend.DataType
	closed func() bool
	ctx    *driver.Context
	what   fmt.Stringer
}

// BiasOf returns the bias vector in buf.
func BiasOf[T ExElem](buf *memory.Buffer[T]) Bias {
	if buf == nil {
		return Bias{}
	}
	return Bias{ptr: buf.Ptr(), n: buf.Len(), t: dataType[T](), closed: buf.Closed, ctx: buf.Context(), what: buf}
}

// MatmulConfig says how Matmul computes. The zero value is a float32
// accumulation (Compute32F), no epilogue and no workspace.
type MatmulConfig struct {
	// Compute is the compute type; the zero value means Compute32F.
	// Compute16F is not offered here (its scalars would be Half): use
	// GemmEx.
	Compute Compute
	// Epilogue is fused into the product; a bias form needs Bias.
	Epilogue Epilogue
	Bias     Bias
	// Workspace is the scratch memory the chosen algorithm may use; the
	// heuristics pick among the algorithms that fit in it (none: only
	// those that need none). NVIDIA recommends 32 MiB on Hopper. It must
	// be on the handle's device, 256-byte aligned, and not be used by
	// other work of the stream's until the product has run.
	Workspace *memory.Buffer[byte]
	// Batch, when more than 1, makes Matmul that many products of the
	// shape of its matrices, the i-th matrices of A, B and C (and D) at
	// element i*Strides.A, i*Strides.B and i*Strides.C of their buffers
	// (cuBLASLt's strided batch; D's stride is C's).
	Batch   int
	Strides Strides
}

// Matmul is D = epilogue(alpha*op(A)*op(B) + beta*C) (cublasLtMatmul) on
// stream s: A and B of one type (Half, BFloat16 or float32), C and D of one
// type, with GemmEx's table of combinations. Shapes as for Gemm: op(A) is
// m×k, op(B) k×n, C and D m×n, used as stored; D may be C itself (the
// product in place). alpha and beta are host values. s must be in the
// handle's context.
//
// The first product of a shape (with its types, operations, leading
// dimensions, compute type, epilogue and workspace size) asks cuBLASLt's
// heuristics for the best algorithm (cublasLtMatmulAlgoGetHeuristic) and
// keeps the descriptors and the answer in the handle; later products of
// the shape reuse them. No algorithm is an error wrapping
// backend.BLASNotSupported's *backend.BLASError.
func Matmul[A, C ExElem](lt *Lt, s *stream.Stream, alpha float32, a, b Matrix[A], beta float32, c, d Matrix[C], cfg MatmulConfig) error {
	const op = "cublas.Matmul"
	if _, err := core.OpenQueue(op, s); err != nil {
		return err
	}
	cl, err := lt.enter(op)
	if err != nil {
		return err
	}
	err = func() error {
		if s.Context().Handle() != lt.ctx {
			return fmt.Errorf("%s: %s is not in the handle's context %#x: %w", op, s, lt.ctx, driver.ErrWrongContext)
		}
		m, n, k, err := ltShape(lt, op, a, b, c, d)
		if err != nil {
			return err
		}
		key, err := ltKeyOf(lt, op, dataType[A](), dataType[C](), a, b, c, d, cfg)
		if err != nil {
			return err
		}
		if m == 0 || n == 0 {
			return nil
		}
		key.m, key.n, key.k = m, n, k
		p, err := lt.plans.get(lt, key)
		if err != nil {
			return err
		}
		return p.run(lt, alpha, a.Buf.Ptr(), b.Buf.Ptr(), beta, c.Buf.Ptr(), d.Buf.Ptr(), cfg, s.Handle())
	}()
	return cl.leave(op, err)
}

// ltShape checks Matmul's matrices and returns m, n and k.
func ltShape[A, C any](lt *Lt, op string, a, b Matrix[A], c, d Matrix[C]) (m, n, k int, err error) {
	if err := matrix(lt, op, "A", a); err != nil {
		return 0, 0, 0, err
	}
	if err := matrix(lt, op, "B", b); err != nil {
		return 0, 0, 0, err
	}
	if err := matrix(lt, op, "C", c); err != nil {
		return 0, 0, 0, err
	}
	if err := matrix(lt, op, "D", d); err != nil {
		return 0, 0, 0, err
	}
	if c.Op != NoTrans || d.Op != NoTrans {
		return 0, 0, 0, invalidf(op, "C and D are used as stored: their Op must be NoTrans")
	}
	m, k = a.shape()
	kb, n := b.shape()
	if kb != k || c.Rows != m || c.Cols != n || d.Rows != m || d.Cols != n {
		return 0, 0, 0, invalidf(op, "op(A) is %d×%d, op(B) %d×%d, C %d×%d, D %d×%d: they do not multiply", m, k, kb, n, c.Rows, c.Cols, d.Rows, d.Cols)
	}
	return m, n, k, nil
}

// ltKeyOf checks the configuration and returns the product's plan key
// without its shape.
func ltKeyOf[A, C any](lt *Lt, op string, at, ct backend.DataType, a, b Matrix[A], c, d Matrix[C], cfg MatmulConfig) (planKey, error) {
	compute := cfg.Compute
	if compute == 0 {
		compute = Compute32F
	}
	if compute == Compute16F {
		return planKey{}, invalidf(op, "Compute16F is not offered by Matmul (its scalars are Half): use GemmEx")
	}
	if err := exTypes(op, at, ct, compute); err != nil {
		return planKey{}, err
	}
	epi := cfg.Epilogue
	if epi == 0 {
		epi = NoEpilogue
	}
	if !epi.valid() {
		return planKey{}, invalidf(op, "%v", epi)
	}
	key := planKey{at: at, ct: ct, ta: a.Op, tb: b.Op, lda: a.LD, ldb: b.LD, ldc: c.LD, ldd: d.LD,
		compute: compute, epi: epi, biasType: -1}
	if epi.hasBias() {
		bs := cfg.Bias
		if bs.ptr == 0 || bs.ctx == nil {
			return planKey{}, invalidf(op, "the %v epilogue needs a Bias", epi)
		}
		if err := onDevice(lt.dev, op, "bias", bs.closed(), bs.ctx, bs.what); err != nil {
			return planKey{}, err
		}
		if bs.t != ct {
			return planKey{}, invalidf(op, "a %s bias with %s D: the bias is of D's type", typeName(bs.t), typeName(ct))
		}
		if bs.n < d.Rows {
			return planKey{}, invalidf(op, "bias: %s holds %d elements; D has %d rows", bs.what, bs.n, d.Rows)
		}
		key.biasType = bs.t
	} else if cfg.Bias.ptr != 0 {
		return planKey{}, invalidf(op, "a Bias with the %v epilogue, which adds none", epi)
	}
	if cfg.Batch > 1 {
		if err := stridedBatch(op, a, b, c, cfg.Strides, cfg.Batch); err != nil {
			return planKey{}, err
		}
		if err := batch(op, "D", d, cfg.Strides.C, cfg.Batch); err != nil {
			return planKey{}, err
		}
		key.batch, key.st = cfg.Batch, cfg.Strides
	} else if cfg.Batch < 0 {
		return planKey{}, invalidf(op, "batch of %d", cfg.Batch)
	}
	if ws := cfg.Workspace; ws != nil {
		if err := onDevice(lt.dev, op, "workspace", ws.Closed(), ws.Context(), ws); err != nil {
			return planKey{}, err
		}
		if ws.Ptr()%256 != 0 {
			return planKey{}, invalidf(op, "workspace %s starts at %#x, not 256-byte aligned", ws, ws.Ptr())
		}
		key.ws = uintptr(ws.Len())
	}
	return key, nil
}

// enter starts a call: the handle open, its context bound. The caller must
// end it with leave.
func (l *Lt) enter(op string) (ltCall, error) {
	if l == nil || l.hold == nil {
		return ltCall{}, fmt.Errorf("%s: nil or zero handle: %w", op, driver.ErrInvalidInput)
	}
	l.mu.RLock()
	if l.closed {
		l.mu.RUnlock()
		return ltCall{}, fmt.Errorf("%s: %s: %w", op, l, driver.ErrClosed)
	}
	bd, err := l.hold.Bind()
	if err != nil {
		l.mu.RUnlock()
		return ltCall{}, fmt.Errorf("%s: %w", op, err)
	}
	return ltCall{l: l, bd: bd}, nil
}

// ltCall is a call in progress: the handle's read lock and its context
// bound on the calling OS thread.
type ltCall struct {
	l  *Lt
	bd core.Binding
}

// leave ends a call, returning err (wrapped with op) or the unbinding's
// error.
func (c ltCall) leave(op string, err error) error {
	uerr := c.bd.Unbind()
	c.l.mu.RUnlock()
	if err != nil {
		return wrapOnce(op, err, "cuBLASLt handle %#x", c.l.h)
	}
	return uerr
}
