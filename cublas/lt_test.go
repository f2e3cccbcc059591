package cublas_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/cublas"
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/memory"
)

func newLt(t testing.TB, e *env) *cublas.Lt {
	t.Helper()
	lt, err := cublas.NewLt(e.ctx)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, lt.Close()) })
	return lt
}

// geluRef is the tanh approximation cuBLASLt's GELU epilogue computes.
func geluRef(x float64) float64 {
	return 0.5 * x * (1 + math.Tanh(math.Sqrt(2/math.Pi)*(x+0.044715*x*x*x)))
}

// float32 products through cuBLASLt: every transpose combination, beta, a
// product in place, plans kept per shape.
func TestLtMatmulFloat32(t *testing.T) {
	e := newEnv(t)
	lt := newLt(t, e)
	v, err := lt.Version()
	require.NoError(t, err)
	assert.Greater(t, v, 110000)
	r := rand.New(rand.NewPCG(21, 22))
	const m, n, k = 24, 16, 40
	for _, ops := range [][2]cublas.Op{{cublas.NoTrans, cublas.NoTrans}, {cublas.Trans, cublas.NoTrans}, {cublas.NoTrans, cublas.Trans}, {cublas.Trans, cublas.Trans}} {
		ar, ac, br, bc := m, k, k, n
		if ops[0] == cublas.Trans {
			ar, ac = k, m
		}
		if ops[1] == cublas.Trans {
			br, bc = n, k
		}
		av, bv, cv := random[float32](r, ar*ac), random[float32](r, br*bc), random[float32](r, m*n)
		a, b := cublas.Mat(upload(t, e, av), ar, ac), cublas.Mat(upload(t, e, bv), br, bc)
		a.Op, b.Op = ops[0], ops[1]
		c, d := cublas.Mat(upload(t, e, cv), m, n), cublas.Mat(upload(t, e, make([]float32, m*n)), m, n)
		require.NoError(t, cublas.Matmul(lt, e.s, 1.5, a, b, 0.5, c, d, cublas.MatmulConfig{Compute: cublas.Compute32FPedantic}))
		want := refGemm(ops[0], ops[1], m, n, k, 1.5, av, ar, bv, br, 0.5, cv, m)
		near(t, want, download(t, e, d.Buf), 8*k*0x1p-24, "D = 1.5 op(A) op(B) + 0.5 C, "+ops[0].String()+ops[1].String())
		require.NoError(t, cublas.Matmul(lt, e.s, 1.5, a, b, 0.5, c, c, cublas.MatmulConfig{Compute: cublas.Compute32FPedantic}))
		near(t, want, download(t, e, c.Buf), 8*k*0x1p-24, "in place")
	}
	assert.Equal(t, 4, cublas.Plans(lt), "one plan per kind of product")
}

// BFloat16 inputs with a GELU+bias epilogue into BFloat16 (a BFloat16
// bias) and a ReLU+bias one into float32 (a float32 bias); the bias
// pointer changes from call to call of one plan.
func TestLtMatmulEpilogues(t *testing.T) {
	e := newEnv(t)
	lt := newLt(t, e)
	ws, err := memory.Alloc[byte](e.ctx, 32<<20)
	require.NoError(t, err)
	defer ws.Close()
	r := rand.New(rand.NewPCG(31, 32))
	const m, n, k = 32, 24, 64
	af, bf := random[float32](r, m*k), random[float32](r, k*n)
	ab, bb := make([]cublas.BFloat16, len(af)), make([]cublas.BFloat16, len(bf))
	for i, v := range af {
		ab[i] = cublas.BFloat16Of(v)
		af[i] = ab[i].Float32()
	}
	for i, v := range bf {
		bb[i] = cublas.BFloat16Of(v)
		bf[i] = bb[i].Float32()
	}
	prod := refGemm(cublas.NoTrans, cublas.NoTrans, m, n, k, 1, af, m, bf, k, 0, make([]float32, m*n), m)
	a, b := cublas.Mat(upload(t, e, ab), m, k), cublas.Mat(upload(t, e, bb), k, n)

	for round := range 2 {
		bias, bias16 := random[float32](r, m), make([]cublas.BFloat16, m)
		for i, v := range bias {
			bias16[i] = cublas.BFloat16Of(v)
			bias[i] = bias16[i].Float32()
		}
		d := cublas.Mat(upload(t, e, make([]cublas.BFloat16, m*n)), m, n)
		cfg := cublas.MatmulConfig{Epilogue: cublas.GELUBias, Bias: cublas.BiasOf(upload(t, e, bias16)), Workspace: ws}
		require.NoError(t, cublas.Matmul(lt, e.s, 1, a, b, 0, d, d, cfg))
		got := download(t, e, d.Buf)
		for j := range n {
			for i := range m {
				want := geluRef(real(prod[i+j*m]) + float64(bias[i]))
				g := float64(got[i+j*m].Float32())
				require.InDelta(t, want, g, 0x1p-7*math.Max(1, math.Abs(want))+1e-3, "round %d: GELU(AB + bias)[%d,%d]", round, i, j)
			}
		}
	}

	bias := random[float32](r, m)
	out := cublas.Mat(upload(t, e, make([]float32, m*n)), m, n)
	require.NoError(t, cublas.Matmul(lt, e.s, 1, a, b, 0, out, out, cublas.MatmulConfig{Epilogue: cublas.ReLUBias, Bias: cublas.BiasOf(upload(t, e, bias)), Workspace: ws}))
	got := download(t, e, out.Buf)
	for j := range n {
		for i := range m {
			want := math.Max(real(prod[i+j*m])+float64(bias[i]), 0)
			require.InDelta(t, want, float64(got[i+j*m]), 1e-4*math.Max(1, math.Abs(want)), "ReLU(AB + bias)[%d,%d]", i, j)
		}
	}
}

// Refused calls change nothing and say why.
func TestLtChecks(t *testing.T) {
	e := newEnv(t)
	lt := newLt(t, e)
	buf := upload(t, e, make([]float32, 64))
	A := cublas.Mat(buf, 8, 8)
	none := cublas.MatmulConfig{}
	assert.ErrorIs(t, cublas.Matmul(lt, e.s, 1, A, cublas.Mat(buf, 4, 8), 0, A, A, none), driver.ErrInvalidValue, "k mismatch")
	assert.ErrorIs(t, cublas.Matmul(lt, e.s, 1, A, A, 0, A, A.T(), none), driver.ErrInvalidValue, "D transposed")
	assert.ErrorIs(t, cublas.Matmul(lt, nil, 1, A, A, 0, A, A, none), driver.ErrInvalidValue, "nil stream")
	assert.ErrorIs(t, cublas.Matmul(lt, e.s, 1, A, A, 0, A, A, cublas.MatmulConfig{Epilogue: cublas.BiasOnly}), driver.ErrInvalidValue, "bias epilogue without a bias")
	assert.ErrorIs(t, cublas.Matmul(lt, e.s, 1, A, A, 0, A, A, cublas.MatmulConfig{Bias: cublas.BiasOf(buf)}), driver.ErrInvalidValue, "a bias with no bias epilogue")
	short := upload(t, e, make([]float32, 4))
	assert.ErrorIs(t, cublas.Matmul(lt, e.s, 1, A, A, 0, A, A, cublas.MatmulConfig{Epilogue: cublas.BiasOnly, Bias: cublas.BiasOf(short)}), driver.ErrInvalidValue, "bias shorter than D's rows")
	assert.ErrorIs(t, cublas.Matmul(lt, e.s, 1, A, A, 0, A, A, cublas.MatmulConfig{Compute: cublas.Compute16F}), driver.ErrInvalidValue, "Compute16F")
	assert.ErrorIs(t, cublas.Matmul(lt, e.s, 1, A, A, 0, A, A, cublas.MatmulConfig{Epilogue: 99}), driver.ErrInvalidValue, "no such epilogue")
	hb := upload(t, e, make([]cublas.Half, 64))
	assert.ErrorIs(t, cublas.Matmul(lt, e.s, 1, A, A, 0, A, A, cublas.MatmulConfig{Epilogue: cublas.BiasOnly, Bias: cublas.BiasOf(hb)}), driver.ErrInvalidValue, "a Half bias with float32 D")
	assert.ErrorIs(t, cublas.Matmul(lt, e.s, 1, A, A, 0, cublas.Mat(hb, 8, 8), cublas.Mat(hb, 8, 8), none), driver.ErrInvalidValue, "float32 in, Half out")
	assert.Zero(t, cublas.Plans(lt), "refused calls plan nothing")

	require.NoError(t, cublas.Matmul(lt, e.s, 1, A, A, 0, A, cublas.Mat(upload(t, e, make([]float32, 64)), 8, 8), none))
	assert.Equal(t, 1, cublas.Plans(lt))

	other, err := cublas.NewLt(e.ctx)
	require.NoError(t, err)
	require.NoError(t, cublas.Matmul(other, e.s, 1, A, A, 0, A, cublas.Mat(upload(t, e, make([]float32, 64)), 8, 8), none))
	require.NoError(t, other.Close())
	require.NoError(t, other.Close(), "a second Close")
	assert.ErrorIs(t, cublas.Matmul(other, e.s, 1, A, A, 0, A, A, none), driver.ErrClosed)
	_, err = other.Version()
	assert.ErrorIs(t, err, driver.ErrClosed)
	_, err = cublas.NewLt(nil)
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
	var zero *cublas.Lt
	assert.ErrorIs(t, cublas.Matmul(zero, e.s, 1, A, A, 0, A, A, none), driver.ErrInvalidValue)
	assert.ErrorIs(t, zero.Close(), driver.ErrInvalidValue)

	closed, err := memory.Alloc[float32](e.ctx, 64)
	require.NoError(t, err)
	require.NoError(t, closed.Close())
	assert.ErrorIs(t, cublas.Matmul(lt, e.s, 1, cublas.Mat(closed, 8, 8), A, 0, A, A, none), driver.ErrClosed)
	require.NoError(t, e.s.Synchronize())
}

// A planned product allocates nothing per call (the backend quieted, as
// in TestHotPathAllocatesNothing).
func TestLtMatmulAllocatesNothing(t *testing.T) {
	if testing.CoverMode() != "" {
		t.Skip("coverage counters may allocate")
	}
	e := newEnv(t)
	lt := newLt(t, e)
	a := cublas.Mat(upload(t, e, make([]float32, 64*64)), 64, 64)
	c := cublas.Mat(upload(t, e, make([]float32, 64*64)), 64, 64)
	bias := cublas.BiasOf(upload(t, e, make([]float32, 64)))
	cfg := cublas.MatmulConfig{Epilogue: cublas.ReLUBias, Bias: bias}
	require.NoError(t, cublas.Matmul(lt, e.s, 1, a, a, 0, c, c, cfg))
	restore := cublas.QuietLt(lt)
	var ferr error
	allocs := testing.AllocsPerRun(50, func() {
		if err := cublas.Matmul(lt, e.s, 1, a, a, 0, c, c, cfg); err != nil {
			ferr = err
		}
	})
	restore()
	require.NoError(t, ferr)
	assert.Zero(t, allocs)
	require.NoError(t, e.s.Synchronize())
}

// A strided batch of three products through cuBLASLt, B shared (stride 0).
func TestLtMatmulBatch(t *testing.T) {
	e := newEnv(t)
	lt := newLt(t, e)
	r := rand.New(rand.NewPCG(41, 42))
	const m, n, k, count = 8, 6, 5, 3
	av, bv := random[float32](r, count*m*k), random[float32](r, k*n)
	dv := make([]float32, count*m*n)
	a, b := cublas.Mat(upload(t, e, av), m, k), cublas.Mat(upload(t, e, bv), k, n)
	d := cublas.Mat(upload(t, e, dv), m, n)
	cfg := cublas.MatmulConfig{Compute: cublas.Compute32FPedantic, Batch: count, Strides: cublas.Strides{A: m * k, B: 0, C: m * n}}
	require.NoError(t, cublas.Matmul(lt, e.s, 1, a, b, 0, d, d, cfg))
	got := download(t, e, d.Buf)
	for i := range count {
		want := refGemm(cublas.NoTrans, cublas.NoTrans, m, n, k, 1, av[i*m*k:(i+1)*m*k], m, bv, k, 0, make([]float32, m*n), m)
		near(t, want, got[i*m*n:(i+1)*m*n], 8*k*0x1p-24, "product "+string(rune('0'+i)))
	}
	cfg.Batch = count + 1
	assert.ErrorIs(t, cublas.Matmul(lt, e.s, 1, a, b, 0, d, d, cfg), driver.ErrInvalidValue, "a product past the buffers")
	cfg.Batch, cfg.Strides.C = count, 1
	assert.ErrorIs(t, cublas.Matmul(lt, e.s, 1, a, b, 0, d, d, cfg), driver.ErrInvalidValue, "overlapping results")
}

// Products from several goroutines share one plan; Close waits for them
// and the calls after it are refused.
func TestLtConcurrentUse(t *testing.T) {
	e := newEnv(t)
	lt, err := cublas.NewLt(e.ctx)
	require.NoError(t, err)
	a := cublas.Mat(upload(t, e, make([]float32, 16*16)), 16, 16)
	outs := make([]cublas.Matrix[float32], 8)
	for i := range outs {
		outs[i] = cublas.Mat(upload(t, e, make([]float32, 16*16)), 16, 16)
	}
	errs := make(chan error, len(outs))
	for _, d := range outs {
		go func() {
			var err error
			for range 20 {
				if err = cublas.Matmul(lt, e.s, 1, a, a, 0, d, d, cublas.MatmulConfig{}); err != nil {
					break
				}
			}
			errs <- err
		}()
	}
	for range outs {
		assert.NoError(t, <-errs)
	}
	assert.Equal(t, 1, cublas.Plans(lt))
	done := make(chan error)
	go func() { done <- cublas.Matmul(lt, e.s, 1, a, a, 0, outs[0], outs[0], cublas.MatmulConfig{}) }()
	require.NoError(t, lt.Close())
	if err := <-done; err != nil {
		assert.ErrorIs(t, err, driver.ErrClosed, "a product racing Close runs before it or is refused")
	}
	assert.Zero(t, cublas.Plans(lt), "Close destroys the plans")
	require.NoError(t, e.s.Synchronize())
}
