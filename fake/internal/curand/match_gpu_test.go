package curand

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/fake/internal/ondevice"
	"github.com/nocgo/cuda/gpu"
	"github.com/nocgo/cuda/internal/core"
	"github.com/nocgo/cuda/memory"
	cudastream "github.com/nocgo/cuda/stream"
)

// hostQueue runs the fake's work at once over host memory at address base.
type hostQueue struct{ mem []byte }

const base = 0x10000

func (q *hostQueue) Enqueue(_ string, _ uintptr, work func(ondevice.Memory) error) error {
	return work(q)
}
func (q *hostQueue) StreamDevice(uintptr) (int, error) { return 0, nil }
func (q *hostQueue) Read(p, n uintptr) ([]byte, error) { return q.Write(p, n) }
func (q *hostQueue) Write(p, n uintptr) ([]byte, error) {
	if p < base || p+n > base+uintptr(len(q.mem)) {
		return nil, backend.ErrIllegalAddress
	}
	return q.mem[p-base : p-base+n], nil
}

// realCURAND opens the GPU and libcurand, or skips (fails with
// NOCGO_CUDA_REQUIRE_GPU=1).
func realCURAND(t *testing.T) (backend.CURAND, *driver.Context, *cudastream.Stream) {
	drv, err := gpu.Load()
	if err != nil {
		if os.Getenv("NOCGO_CUDA_REQUIRE_GPU") == "1" {
			t.Fatalf("NOCGO_CUDA_REQUIRE_GPU=1 but the driver does not load: %v", err)
		}
		t.Skipf("no GPU: %v", err)
	}
	dev, err := drv.Device(0)
	require.NoError(t, err)
	ctx, err := dev.PrimaryContext()
	require.NoError(t, err)
	t.Cleanup(func() { ctx.Close() })
	s, err := cudastream.New(ctx, cudastream.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	p, ok := core.ContextOf(ctx).API.(backend.RANDProvider)
	require.True(t, ok, "the real backend provides cuRAND")
	r, err := p.CURAND()
	require.NoError(t, err)
	return r, ctx, s
}

// call is one generation entry point: it fills n elements of size bytes.
type call struct {
	name string
	size uintptr
	ulps float64 // 0: bit for bit; else the tolerance in units of the last place
	// abs, when not 0, also accepts |real-fake| <= abs·max(1, |real|): the
	// float normals, where the GPU's fast logf/__sincosf are off from Go's
	// math by about 2^-21 absolute, many ulps of a value near 0 (seen: 1e-6
	// for sd 2 on the H200, in ~2% of Philox's values).
	abs    float64
	double bool
	run    func(r backend.CURAND, g, out, n uintptr) error
}

var calls = []call{
	{"Generate", 4, 0, 0, false, func(r backend.CURAND, g, o, n uintptr) error { return r.Generate(g, o, n) }},
	{"Uniform", 4, 0, 0, false, func(r backend.CURAND, g, o, n uintptr) error { return r.GenerateUniform(g, o, n) }},
	{"UniformDouble", 8, 0, 0, true, func(r backend.CURAND, g, o, n uintptr) error { return r.GenerateUniformDouble(g, o, n) }},
	{"Normal", 4, 64, 4e-6, false, func(r backend.CURAND, g, o, n uintptr) error { return r.GenerateNormal(g, o, n, 1, 2) }},
	{"NormalDouble", 8, 1 << 12, 0, true, func(r backend.CURAND, g, o, n uintptr) error { return r.GenerateNormalDouble(g, o, n, 1, 2) }},
	{"LogNormal", 4, 64, 4e-6, false, func(r backend.CURAND, g, o, n uintptr) error { return r.GenerateLogNormal(g, o, n, 0, 0.5) }},
}

// TestMatchesCURAND compares the fake's first numbers with libcurand's, for
// every generator the fake reproduces and every call: bit for bit where the
// package documentation says so, within a tolerance for the normal
// numbers. On a difference it prints the first differing indices with both
// values, and where each of the real first words lies in the fake's model
// (subsequence, element), which is what it takes to fix an ordering.
func TestMatchesCURAND(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	r, ctx, s := realCURAND(t)
	const n = 3*Threads + 64
	dev, err := memory.Alloc[byte](ctx, 8*n)
	require.NoError(t, err)
	defer dev.Close()
	type gen struct {
		kind   backend.RNGType
		dims   uint32
		seed   uint64
		offset uint64
		order  backend.RANDOrdering
	}
	var gens []gen
	for _, k := range []backend.RNGType{backend.RNGPhilox4x32x10, backend.RNGXORWOW, backend.RNGMRG32k3a} {
		for _, o := range []backend.RANDOrdering{backend.OrderingPseudoDefault, backend.OrderingPseudoLegacy} {
			gens = append(gens, gen{kind: k, seed: 1234, order: o}, gen{kind: k, seed: 0xfedcba9876543210, offset: 1000, order: o})
		}
	}
	for _, d := range []uint32{1, 4, uint32(ExactSobolDimensions)} {
		gens = append(gens, gen{kind: backend.RNGSobol32, dims: d}, gen{kind: backend.RNGSobol32, dims: d, offset: 5})
	}
	gens = append(gens, gen{kind: backend.RNGSobol64, dims: 3})
	for _, gc := range gens {
		for _, c := range calls {
			if gc.kind.Quasi() && c.name == "Generate" && gc.kind.Bits64() {
				continue
			}
			name := fmt.Sprintf("%d/dims%d/seed%#x/offset%d/order%d/%s", gc.kind, gc.dims, gc.seed, gc.offset, gc.order, c.name)
			t.Run(name, func(t *testing.T) {
				cnt := uintptr(n)
				if gc.dims > 0 {
					cnt -= cnt % uintptr(gc.dims)
				}
				setup := func(r backend.CURAND) uintptr {
					g, err := r.CreateGenerator(gc.kind)
					require.NoError(t, err)
					if gc.kind.Quasi() {
						require.NoError(t, r.SetDimensions(g, gc.dims))
					} else {
						require.NoError(t, r.SetSeed(g, gc.seed))
						require.NoError(t, r.SetOrdering(g, gc.order))
					}
					require.NoError(t, r.SetOffset(g, gc.offset))
					return g
				}
				g := setup(r)
				defer r.DestroyGenerator(g)
				require.NoError(t, r.SetStream(g, s.Handle()))
				if gc.kind.Bits64() && c.name == "Generate" {
					require.NoError(t, r.GenerateLongLong(g, dev.Ptr(), cnt))
				} else {
					require.NoError(t, c.run(r, g, dev.Ptr(), cnt))
				}
				want := make([]byte, 8*n)
				require.NoError(t, memory.CopyToHostAsync(s, want, dev))
				require.NoError(t, s.Synchronize())

				q := &hostQueue{mem: make([]byte, 8*n)}
				f := New(q)
				fg := setup(f)
				if gc.kind.Bits64() && c.name == "Generate" {
					require.NoError(t, f.GenerateLongLong(fg, base, cnt))
				} else {
					require.NoError(t, c.run(f, fg, base, cnt))
				}
				if knownDifferent(gc.kind, gc.dims, gc.offset, c.name) {
					sameDistribution(t, c, want[:cnt*c.size], q.mem[:cnt*c.size])
					return
				}
				compare(t, gc.kind, gc.seed, c, want[:cnt*c.size], q.mem[:cnt*c.size])
			})
		}
	}
}

func compare(t *testing.T, kind backend.RNGType, seed uint64, c call, want, got []byte) {
	var diffs []string
	bad := 0
	for i := 0; i+int(c.size) <= len(want); i += int(c.size) {
		var w, g, ulp float64
		var wb, gb uint64
		if c.size == 8 {
			wb, gb = binary.LittleEndian.Uint64(want[i:]), binary.LittleEndian.Uint64(got[i:])
			w, g = math.Float64frombits(wb), math.Float64frombits(gb)
			ulp = math.Abs(math.Nextafter(w, math.Inf(1)) - w)
		} else {
			wb, gb = uint64(binary.LittleEndian.Uint32(want[i:])), uint64(binary.LittleEndian.Uint32(got[i:]))
			w, g = float64(math.Float32frombits(uint32(wb))), float64(math.Float32frombits(uint32(gb)))
			ulp = float64(math.Nextafter32(float32(w), float32(math.Inf(1))) - float32(w))
		}
		ok := wb == gb
		if !ok && c.ulps > 0 {
			ok = math.Abs(w-g) <= c.ulps*ulp
		}
		if !ok && c.abs > 0 {
			ok = math.Abs(w-g) <= c.abs*math.Max(1, math.Abs(w))
		}
		if !ok {
			bad++
			if len(diffs) < 12 {
				diffs = append(diffs, fmt.Sprintf("[%d] real %#x (%g) fake %#x (%g)", i/int(c.size), wb, w, gb, g))
			}
		}
	}
	if bad == 0 {
		return
	}
	msg := fmt.Sprintf("%d of %d differ; first: %s", bad, len(want)/int(c.size), strings.Join(diffs, "; "))
	if c.name == "Generate" && !kind.Quasi() {
		msg += "\nwhere the real words lie in the model (subsequence, element): " + locate(kind, seed, want)
	}
	t.Error(msg)
}

// locate finds the first 16 real words among the first 16 elements of the
// model's subsequences 0..Threads-1.
func locate(kind backend.RNGType, seed uint64, want []byte) string {
	where := map[uint32]string{}
	for sub := uint64(0); sub < Threads; sub++ {
		var next func() uint32
		switch kind {
		case backend.RNGPhilox4x32x10:
			e := uint64(0)
			next = func() uint32 { e++; return philoxAt(seed, sub, e-1) }
		case backend.RNGXORWOW:
			g := newXORWOW(seed, sub, 0)
			next = g.next
		case backend.RNGMRG32k3a:
			g := newMRG32k3a(seed, sub, 0)
			next = g.next
		default:
			return "(no model)"
		}
		for e := 0; e < 16; e++ {
			where[next()] = fmt.Sprintf("(%d, %d)", sub, e)
		}
	}
	var out []string
	for i := 0; i < 16 && 4*i+4 <= len(want); i++ {
		w := binary.LittleEndian.Uint32(want[4*i:])
		at, ok := where[w]
		if !ok {
			at = "not found"
		}
		out = append(out, fmt.Sprintf("[%d]=%#x %s", i, w, at))
	}
	return strings.Join(out, " ")
}

// TestMRGThreads measures how many threads libcurand's MRG32k3a host
// generator runs: on the H200 its words 0..12351 were element 0 of
// subsequences 0..12351 (the fake models 4096 threads), so this generates
// 2^18 words and reports the first word that is not element 0 of its own
// subsequence, and which (subsequence, element) it is, for the model's next
// revision.
func TestMRGThreads(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	r, ctx, s := realCURAND(t)
	const n = 1 << 18
	dev, err := memory.Alloc[uint32](ctx, n)
	require.NoError(t, err)
	defer dev.Close()
	g, err := r.CreateGenerator(backend.RNGMRG32k3a)
	require.NoError(t, err)
	defer r.DestroyGenerator(g)
	require.NoError(t, r.SetSeed(g, 1234))
	require.NoError(t, r.SetStream(g, s.Handle()))
	require.NoError(t, r.Generate(g, dev.Ptr(), n))
	want := make([]uint32, n)
	require.NoError(t, memory.CopyToHostAsync(s, want, dev))
	require.NoError(t, s.Synchronize())
	got := make([]uint32, n)
	mrgStream(1234, MRGThreads).words(got, 0)
	for m := range uint64(n) {
		if got[m] == want[m] {
			continue
		}
		// Where the real word lies: element e < 4 of which subsequence.
		found := "in no subsequence below 2^17 as element 0..3"
		for sub := uint64(0); sub < 1<<17; sub++ {
			x := newMRG32k3a(1234, sub, 0)
			for e := 0; e < 4; e++ {
				if x.next() == want[m] {
					found = fmt.Sprintf("element %d of subsequence %d", e, sub)
					sub = 1 << 17
					break
				}
			}
		}
		t.Errorf("MRG32k3a with %d threads: word %d is %#x, not the model's %#x; it is %s", MRGThreads, m, want[m], got[m], found)
		return
	}
	t.Logf("MRG32k3a: all %d words follow the model of %d threads", n, MRGThreads)
}

// TestDoublesContinue checks that two calls of n doubles give what one
// call of 2n gives (the fake advances a generator's offset by the number
// of doubles generated, Philox and XORWOW included).
func TestDoublesContinue(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	r, ctx, s := realCURAND(t)
	const n = 2*Threads + 8
	dev, err := memory.Alloc[float64](ctx, 2*n)
	require.NoError(t, err)
	defer dev.Close()
	for _, k := range []backend.RNGType{backend.RNGPhilox4x32x10, backend.RNGXORWOW, backend.RNGMRG32k3a} {
		run := func(r backend.CURAND, stream uintptr, split bool) []float64 {
			g, err := r.CreateGenerator(k)
			require.NoError(t, err)
			defer r.DestroyGenerator(g)
			require.NoError(t, r.SetSeed(g, 99))
			if stream != 0 {
				require.NoError(t, r.SetStream(g, stream))
			}
			if split {
				require.NoError(t, r.GenerateUniformDouble(g, dev.Ptr(), n))
				require.NoError(t, r.GenerateUniformDouble(g, dev.Ptr()+8*n, n))
			} else {
				require.NoError(t, r.GenerateUniformDouble(g, dev.Ptr(), 2*n))
			}
			out := make([]float64, 2*n)
			require.NoError(t, memory.CopyToHostAsync(s, out, dev))
			require.NoError(t, s.Synchronize())
			return out
		}
		one, two := run(r, s.Handle(), false), run(r, s.Handle(), true)
		same := 0
		for i := range one {
			if one[i] == two[i] {
				same++
			}
		}
		t.Logf("%d: one call of %d and two of %d agree on %d values", k, 2*n, n, same)
		assert.Equal(t, 2*n, same, "%d: the second call continues the first", k)
	}
}

// knownDifferent lists the cases whose order the fake does not reproduce
// bit for bit (see the package doc, "Known differences"): the H200 run 2
// showed them; they are checked by distribution instead.
func knownDifferent(kind backend.RNGType, dims uint32, offset uint64, name string) bool {
	normal := name == "Normal" || name == "NormalDouble" || name == "LogNormal"
	switch kind {
	case backend.RNGMRG32k3a:
		return normal
	case backend.RNGXORWOW:
		return normal || (name == "UniformDouble" && offset != 0)
	case backend.RNGPhilox4x32x10:
		return name == "NormalDouble"
	case backend.RNGSobol32:
		return dims == 1 && name == "NormalDouble"
	case backend.RNGSobol64:
		return dims == 3 && (name == "Normal" || name == "LogNormal")
	}
	return false
}

// sameDistribution checks that the real and fake values have the same
// mean (within 6 standard errors) and variance (within 15%, 40% for the
// heavy-tailed log-normal).
func sameDistribution(t *testing.T, c call, want, got []byte) {
	t.Helper()
	values := func(b []byte) []float64 {
		var out []float64
		for i := 0; i+int(c.size) <= len(b); i += int(c.size) {
			switch {
			case c.size == 8:
				out = append(out, math.Float64frombits(binary.LittleEndian.Uint64(b[i:])))
			case c.name == "Generate":
				out = append(out, float64(binary.LittleEndian.Uint32(b[i:])))
			default:
				out = append(out, float64(math.Float32frombits(binary.LittleEndian.Uint32(b[i:]))))
			}
		}
		return out
	}
	stats := func(v []float64) (mean, variance float64) {
		for _, x := range v {
			mean += x
		}
		mean /= float64(len(v))
		for _, x := range v {
			variance += (x - mean) * (x - mean)
		}
		return mean, variance / float64(len(v)-1)
	}
	w, g := values(want), values(got)
	require.NotEmpty(t, w)
	wm, wv := stats(w)
	gm, gv := stats(g)
	se := math.Sqrt(wv / float64(len(w)))
	assert.InDelta(t, wm, gm, 6*se, "means: real %g, fake %g", wm, gm)
	rel := 0.15
	if c.name == "LogNormal" {
		rel = 0.4
	}
	assert.InEpsilon(t, wv, gv, rel, "variances: real %g, fake %g", wv, gv)
}
