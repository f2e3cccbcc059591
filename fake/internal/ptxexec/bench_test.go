package ptxexec

import (
	"fmt"
	"math"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/fake/internal/fpu"
)

// BenchmarkAxpy runs the elementwise kernel out[i] = a*x[i] + y[i] (with
// its bounds check) over 1M threads; threads/s is the interpreter's
// speed on one core.
func BenchmarkAxpy(b *testing.B) {
	p, mem := load(b, "90")
	const n = 1 << 20
	px, py, out := mem.alloc(4*n), mem.alloc(4*n), mem.alloc(4*n)
	k := p.Kernels["axpy"]
	l := &Launch{Grid: dim(n / 256), Block: dim(256), Params: packAxpy(k, px, py, out, n), Mem: mem, SMs: 132}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if err := k.Run(l); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "threads/s")
}

// BenchmarkSaxpy runs out[i] = 2*x[i] + y[i] over 4M threads of
// non-zero data, with 1, 2 and all workers (benchWorkers): threads/s on one
// core and the scaling across cores.
func BenchmarkSaxpy(b *testing.B) {
	p, mem := load(b, "90")
	const n = 4 << 20
	xs := make([]float32, n)
	ys := make([]float32, n)
	for i := range xs {
		xs[i] = float32(i%1000) * 0.37
		ys[i] = float32(i%777) * 0.11
	}
	px, py, out := mem.f32s(xs), mem.f32s(ys), mem.alloc(4*n)
	k := p.Kernels["axpy"]
	for _, workers := range benchWorkers() {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			l := &Launch{Grid: dim(n / 256), Block: dim(256), Params: packAxpy(k, px, py, out, n), Mem: mem, SMs: 132, Workers: workers}
			b.ReportAllocs()
			cpu := processCPU()
			for b.Loop() {
				if err := k.Run(l); err != nil {
					b.Fatal(err)
				}
			}
			reportThreads(b, n, cpu)
		})
	}
}

// BenchmarkBlockSum runs the shared-memory tree reduction block_sum
// (__syncthreads between steps, one atomicAdd per block) over 1M
// elements, with 1, 2 and all workers.
func BenchmarkBlockSum(b *testing.B) {
	p, mem := load(b, "90")
	const n = 1 << 20
	xs := make([]float32, n)
	for i := range xs {
		xs[i] = 1
	}
	pin, total := mem.f32s(xs), mem.f32s([]float32{0})
	k := p.Kernels["block_sum"]
	for _, workers := range benchWorkers() {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			l := &Launch{Grid: dim(n / 256), Block: dim(256), Params: params(b, k, pin, total, int32(n)), Mem: mem, SMs: 132, Workers: workers}
			b.ReportAllocs()
			cpu := processCPU()
			for b.Loop() {
				if err := k.Run(l); err != nil {
					b.Fatal(err)
				}
			}
			reportThreads(b, n, cpu)
		})
	}
}

func packAxpy(k *Kernel, px, py, out uint64, n int) []byte {
	buf := make([]byte, k.ParamSize)
	put := func(off int, v uint64, size int) {
		for i := 0; i < size; i++ {
			buf[off+i] = byte(v >> (8 * i))
		}
	}
	put(k.Params[0].Offset, 0x40000000, 4) // a = 2.0f
	put(k.Params[1].Offset, px, 8)
	put(k.Params[2].Offset, py, 8)
	put(k.Params[3].Offset, out, 8)
	put(k.Params[4].Offset, uint64(n), 4)
	return buf
}

// TestMillionElementLaunch runs a 1M-element elementwise launch and checks
// its results; BenchmarkAxpy measures how long it takes.
func TestMillionElementLaunch(t *testing.T) {
	p, mem := load(t, "90")
	const n = 1 << 20
	xs := make([]float32, n)
	for i := range xs {
		xs[i] = float32(i)
	}
	px, py, out := mem.f32s(xs), mem.f32s(xs), mem.alloc(4*n)
	k := p.Kernels["axpy"]
	require.NoError(t, k.Run(&Launch{Grid: dim(n / 256), Block: dim(256), Params: packAxpy(k, px, py, out, n), Mem: mem}))
	got := mem.readF32(out, n)
	for _, i := range []int{0, 1, n / 2, n - 1} {
		require.Equal(t, fpu.FmaF32(2, xs[i], xs[i], fpu.Nearest), got[i])
	}
}

// reportThreads reports threads/s (n threads per iteration, wall time)
// and, where the process's CPU time can be read, threads per CPU second
// since cpu (what one core does, on a machine that others share).
func reportThreads(b *testing.B, n int, cpu float64) {
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "threads/s")
	if used := processCPU() - cpu; cpu > 0 && used > 0 {
		b.ReportMetric(float64(n)*float64(b.N)/used, "threads/cpu-s")
	}
}

// nopObserver is an Observer, SharedRaceObserver and GlobalRaceObserver
// that does nothing: the interpreter's own cost of the checks.
type nopObserver struct{}

func (nopObserver) Global(Access)         {}
func (nopObserver) SharedRace(SharedRace) {}
func (nopObserver) GlobalRace(GlobalRace) {}

// raceCount is an Observer that counts the races it is told of (a
// benchmark's race-free workload must have none).
type raceCount struct{ n atomic.Int64 }

func (*raceCount) Global(Access)           {}
func (c *raceCount) SharedRace(SharedRace) { c.n.Add(1) }
func (c *raceCount) GlobalRace(GlobalRace) { c.n.Add(1) }

// BenchmarkRaceChecks runs saxpy (elementwise, 1M threads), block_sum
// (shared memory, barriers, an atomic per block), warp_sum (shuffles,
// a global atomic per warp), matmul and softmax (as BenchmarkMatmul and
// BenchmarkSoftmax; threads/s counts their elements) with the checks off,
// with an Observer only (what the stream checks need), and with the
// in-kernel shared- and global-memory checks on.
func BenchmarkRaceChecks(b *testing.B) {
	p, mem := load(b, "90")
	const n = 1 << 20
	xs := make([]float32, n)
	for i := range xs {
		xs[i] = float32(i%1000) * 0.37
	}
	px, py, out, total := mem.f32s(xs), mem.f32s(xs), mem.alloc(4*n), mem.f32s([]float32{0})
	saxpy, sum, wsum := p.Kernels["axpy"], p.Kernels["block_sum"], p.Kernels["warp_sum"]
	mm, sm := p.Kernels["matmul"], p.Kernels["softmax"]
	wout := mem.i32s([]int32{0, 0})
	a, bm := matmulInputs()
	pa, pb, pc := mem.f32s(a), mem.f32s(bm), mem.alloc(4*matmulN*matmulN)
	sin, sout := mem.f32s(softmaxInput()), mem.alloc(4*softmaxRows*softmaxCols)
	const g = matmulN / 16
	kernels := []struct {
		name        string
		k           *Kernel
		grid, block [3]uint32
		dyn         uint32
		params      []byte
		work        int // elements a launch works on (threads/s counts them)
	}{
		{"saxpy", saxpy, dim(n / 256), dim(256), 0, packAxpy(saxpy, px, py, out, n), n},
		{"block_sum", sum, dim(n / 256), dim(256), 0, params(b, sum, px, total, int32(n)), n},
		{"warp_sum", wsum, dim(n / 256), dim(256), 0, params(b, wsum, px, wout, int32(n)), n},
		{"matmul", mm, [3]uint32{g, g, 1}, [3]uint32{16, 16, 1}, 0, params(b, mm, pa, pb, pc, int32(matmulN)), matmulN * matmulN},
		{"softmax", sm, dim(softmaxRows), dim(128), 128 * 4, params(b, sm, sin, sout, int32(softmaxCols)), softmaxRows * softmaxCols},
	}
	for _, kc := range kernels {
		for _, mode := range []string{"off", "observer", "in-kernel"} {
			b.Run(kc.name+"/"+mode, func(b *testing.B) {
				l := &Launch{Grid: kc.grid, Block: kc.block, DynShared: kc.dyn, Params: kc.params, Mem: mem, SMs: 132}
				races := &raceCount{}
				if mode != "off" {
					l.Observe = races
				}
				l.SharedRaces, l.GlobalRaces = mode == "in-kernel", mode == "in-kernel"
				cpu := processCPU()
				for b.Loop() {
					if err := kc.k.Run(l); err != nil {
						b.Fatal(err)
					}
				}
				reportThreads(b, kc.work, cpu)
				if n := races.n.Load(); n != 0 {
					b.Fatalf("%d races reported in a race-free kernel", n)
				}
			})
		}
	}
}

// The plain Go loops below do the work of the kernels above on the same
// data, one goroutine, no interpreter: what the CPU does at best, for the
// ratios in BENCHMARKS.md (threads/s counts the loop's elements, one per
// thread of the kernel).

// BenchmarkSaxpyGoLoop is BenchmarkSaxpy's out[i] = 2*x[i] + y[i] as a
// Go loop over 4M float32.
func BenchmarkSaxpyGoLoop(b *testing.B) {
	const n = 4 << 20
	xs, ys, out := make([]float32, n), make([]float32, n), make([]float32, n)
	for i := range xs {
		xs[i] = float32(i%1000) * 0.37
		ys[i] = float32(i%777) * 0.11
	}
	cpu := processCPU()
	for b.Loop() {
		a := float32(2)
		for i := range out {
			out[i] = a*xs[i] + ys[i]
		}
	}
	reportThreads(b, n, cpu)
}

// BenchmarkBlockSumGoLoop is block_sum as a Go loop: each 256 elements
// summed by the same tree of halving steps, then added to the total.
func BenchmarkBlockSumGoLoop(b *testing.B) {
	const n = 1 << 20
	xs := make([]float32, n)
	for i := range xs {
		xs[i] = 1
	}
	var total float32
	cpu := processCPU()
	for b.Loop() {
		for lo := 0; lo < n; lo += 256 {
			var part [256]float32
			copy(part[:], xs[lo:])
			for s := 128; s > 0; s >>= 1 {
				for t := 0; t < s; t++ {
					part[t] += part[t+s]
				}
			}
			total += part[0]
		}
	}
	reportThreads(b, n, cpu)
	if total == 0 {
		b.Fatal("no sum")
	}
}

// matmulN is the size of BenchmarkMatmul's square matrices.
const matmulN = 256

func matmulInputs() (a, bm []float32) {
	a, bm = make([]float32, matmulN*matmulN), make([]float32, matmulN*matmulN)
	for i := range a {
		a[i] = float32(i%11) - 5
		bm[i] = float32(i%7) * 0.25
	}
	return a, bm
}

// BenchmarkMatmul runs the tiled matrix product matmul (16x16 tiles in
// shared memory, two __syncthreads per tile) of two 256x256 matrices:
// 64Ki threads, one per element of the product, with 1, 2 and all workers.
func BenchmarkMatmul(b *testing.B) {
	p, mem := load(b, "90")
	a, bm := matmulInputs()
	pa, pb, pc := mem.f32s(a), mem.f32s(bm), mem.alloc(4*matmulN*matmulN)
	k := p.Kernels["matmul"]
	const g = matmulN / 16
	for _, workers := range benchWorkers() {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			l := &Launch{Grid: [3]uint32{g, g, 1}, Block: [3]uint32{16, 16, 1}, Params: params(b, k, pa, pb, pc, int32(matmulN)), Mem: mem, SMs: 132, Workers: workers}
			cpu := processCPU()
			for b.Loop() {
				if err := k.Run(l); err != nil {
					b.Fatal(err)
				}
			}
			reportThreads(b, matmulN*matmulN, cpu)
		})
	}
}

// BenchmarkMatmulGoLoop is matmul's product as a Go loop: the same
// multiply-adds, each element's in the same order of k, the loops in the
// order that reads memory row by row.
func BenchmarkMatmulGoLoop(b *testing.B) {
	const n = matmulN
	a, bm := matmulInputs()
	c := make([]float32, n*n)
	cpu := processCPU()
	for b.Loop() {
		clear(c)
		for r := 0; r < n; r++ {
			row := c[r*n : (r+1)*n]
			for k := 0; k < n; k++ {
				ark, brow := a[r*n+k], bm[k*n:(k+1)*n]
				for col := range row {
					row[col] += ark * brow[col]
				}
			}
		}
	}
	reportThreads(b, n*n, cpu)
}

// softmaxRows and softmaxCols are BenchmarkSoftmax's input: rows of
// softmaxCols values, one block of 128 threads a row.
const softmaxRows, softmaxCols = 1024, 512

func softmaxInput() []float32 {
	in := make([]float32, softmaxRows*softmaxCols)
	for i := range in {
		in[i] = float32(i%23)*0.37 - 4
	}
	return in
}

// BenchmarkSoftmax runs softmax (a row per block of 128 threads: a
// strided max, a shared-memory tree, a strided sum of expf, a second
// tree, the division) over 1024 rows of 512, with 1, 2 and all workers;
// threads/s counts the rows' elements, as the Go loop does.
func BenchmarkSoftmax(b *testing.B) {
	p, mem := load(b, "90")
	pin, out := mem.f32s(softmaxInput()), mem.alloc(4*softmaxRows*softmaxCols)
	k := p.Kernels["softmax"]
	for _, workers := range benchWorkers() {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			l := &Launch{Grid: dim(softmaxRows), Block: dim(128), DynShared: 128 * 4, Params: params(b, k, pin, out, int32(softmaxCols)), Mem: mem, SMs: 132, Workers: workers}
			cpu := processCPU()
			for b.Loop() {
				if err := k.Run(l); err != nil {
					b.Fatal(err)
				}
			}
			reportThreads(b, softmaxRows*softmaxCols, cpu)
		})
	}
}

// BenchmarkSoftmaxGoLoop is softmax as a Go loop, row by row.
func BenchmarkSoftmaxGoLoop(b *testing.B) {
	in := softmaxInput()
	out := make([]float32, len(in))
	cpu := processCPU()
	for b.Loop() {
		for r := 0; r < softmaxRows; r++ {
			row, o := in[r*softmaxCols:(r+1)*softmaxCols], out[r*softmaxCols:(r+1)*softmaxCols]
			m := float32(-3.0e38)
			for _, v := range row {
				m = max(m, v)
			}
			var sum float32
			for _, v := range row {
				sum += float32(math.Exp(float64(v - m)))
			}
			for j, v := range row {
				o[j] = float32(math.Exp(float64(v-m))) / sum
			}
		}
	}
	reportThreads(b, softmaxRows*softmaxCols, cpu)
}

// benchWorkers are the Launch.Workers the benchmarks run with: 1, 2 and,
// on a machine of more cores, all of them (the scaling across cores).
func benchWorkers() []int {
	if n := runtime.NumCPU(); n > 2 {
		return []int{1, 2, n}
	}
	return []int{1, 2}
}
