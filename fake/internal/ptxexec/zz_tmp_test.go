package ptxexec

import (
	"fmt"
	"testing"
)

func BenchmarkSaxpyBlocks(b *testing.B) {
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
	for _, bs := range []int{32, 256, 1024} {
		b.Run(fmt.Sprintf("block=%d", bs), func(b *testing.B) {
			l := &Launch{Grid: dim(uint32(n / bs)), Block: dim(uint32(bs)), Params: packAxpy(k, px, py, out, n), Mem: mem, SMs: 132, Workers: 1}
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
