package curand_test

import (
	"fmt"

	"github.com/nocgo/cuda/curand"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/stream"
)

// The example runs on the fake driver; with a GPU, use gpu.Load instead
// of fake.New. The Philox words are cuRAND's, bit for bit.
func Example() {
	drv := fake.New()
	dev, _ := drv.Device(0)
	cc, _ := dev.PrimaryContext()
	defer cc.Close()
	s, _ := stream.New(cc, stream.Options{})
	defer s.Close()

	g, err := curand.New(s, curand.Philox)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer g.Close()
	g.SetSeed(1234)

	u, _ := memory.Alloc[float32](cc, 1<<20)
	defer u.Close()
	if err := curand.Uniform(g, u); err != nil {
		fmt.Println(err)
		return
	}
	host := make([]float32, u.Len())
	memory.CopyToHostAsync(s, host, u)
	s.Synchronize()
	var sum float64
	for _, x := range host {
		sum += float64(x)
	}
	fmt.Printf("mean of %d uniform numbers: %.3f\n", len(host), sum/float64(len(host)))

	odd, _ := memory.Alloc[float32](cc, 3)
	defer odd.Close()
	fmt.Println(curand.Normal(g, odd, 0, 1) != nil) // normal numbers come in pairs
	// Output:
	// mean of 1048576 uniform numbers: 0.500
	// true
}
