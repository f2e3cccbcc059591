package cufft_test

import (
	"fmt"
	"math"

	"github.com/nocgo/cuda/cufft"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/stream"
)

// The example runs on the fake driver; with a GPU, use gpu.Load instead
// of fake.New. The spectrum of cos(2π·3t/16) has its peaks at 3 and 13.
func Example() {
	drv := fake.New()
	dev, _ := drv.Device(0)
	cc, _ := dev.PrimaryContext()
	defer cc.Close()
	s, _ := stream.New(cc, stream.Options{})
	defer s.Close()

	const n = 16
	signal := make([]float32, n)
	for i := range signal {
		signal[i] = float32(math.Cos(2 * math.Pi * 3 * float64(i) / n))
	}
	in, _ := memory.FromSlice(cc, signal)
	defer in.Close()
	spec, _ := memory.Alloc[complex64](cc, n/2+1) // R2C: n/2+1 numbers
	defer spec.Close()

	p, err := cufft.Plan1D(s, n, cufft.R2C, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer p.Close()
	if err := cufft.ExecR2C(p, in, spec); err != nil {
		fmt.Println(err)
		return
	}
	out := make([]complex64, n/2+1)
	memory.CopyToHostAsync(s, out, spec)
	s.Synchronize()
	for k, c := range out {
		if math.Abs(float64(real(c))) > 1e-3 {
			fmt.Printf("bin %d: %.1f\n", k, real(c))
		}
	}
	// Output:
	// bin 3: 8.0
}
