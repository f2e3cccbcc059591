package graph_test

import (
	"errors"
	"fmt"
	"log"
	"strings"
	"sync/atomic"

	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/graph"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/stream"
)

// A host node runs Go code at every replay, in the graph's order: here
// after a copy node brought the device's numbers to pinned host memory.
// SetFill then changes one node of the Exec without rebuilding it.
func ExampleGraph_AddHost() {
	drv := fake.New()
	dev, _ := drv.Device(0)
	ctx, err := dev.PrimaryContext()
	if err != nil {
		log.Fatal(err)
	}
	defer ctx.Close()
	s, err := stream.New(ctx, stream.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	d, err := memory.Alloc[int32](ctx, 4)
	if err != nil {
		log.Fatal(err)
	}
	defer d.Close() // after the graph's and the Exec's Close, which let go of it
	h, err := memory.AllocHost[int32](ctx, 4)
	if err != nil {
		log.Fatal(err)
	}
	defer h.Close()

	g, err := graph.New(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer g.Close()
	fill, err := graph.AddFill(g, d, int32(7))
	if err != nil {
		log.Fatal(err)
	}
	cp, err := graph.AddCopyToHost(g, h, d, fill)
	if err != nil {
		log.Fatal(err)
	}
	if _, err := g.AddHost(func() { fmt.Println("host node sees", h.Slice()) }, cp); err != nil {
		log.Fatal(err)
	}
	x, err := g.Instantiate()
	if err != nil {
		log.Fatal(err)
	}
	defer x.Close()
	if err := x.Launch(s); err != nil {
		log.Fatal(err)
	}
	if err := graph.SetFill(x, fill, d, int32(-1)); err != nil {
		log.Fatal(err)
	}
	if err := x.Launch(s); err != nil {
		log.Fatal(err)
	}
	if err := s.Synchronize(); err != nil {
		log.Fatal(err)
	}
	// Output:
	// host node sees [7 7 7 7]
	// host node sees [-1 -1 -1 -1]
}

// A conditional node runs its body only when its condition says so: the
// condition starts at its default at every launch here, and kernels of the
// graph may set it with cudaGraphSetConditional.
func ExampleGraph_AddIf() {
	drv := fake.New()
	dev, _ := drv.Device(0)
	ctx, err := dev.PrimaryContext()
	if err != nil {
		log.Fatal(err)
	}
	defer ctx.Close()
	s, err := stream.New(ctx, stream.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	d, err := memory.Alloc[float32](ctx, 3)
	if err != nil {
		log.Fatal(err)
	}
	defer d.Close()
	for _, on := range []uint32{1, 0} {
		if err := memory.CopyToDevice(d, []float32{0, 0, 0}); err != nil {
			log.Fatal(err)
		}
		g, err := graph.New(ctx)
		if err != nil {
			log.Fatal(err)
		}
		cond, err := g.NewCondition(on, true)
		if err != nil {
			log.Fatal(err)
		}
		_, body, err := g.AddIf(cond)
		if err != nil {
			log.Fatal(err)
		}
		if _, err := graph.AddFill(body, d, float32(1.5)); err != nil {
			log.Fatal(err)
		}
		x, err := g.Instantiate()
		if err != nil {
			log.Fatal(err)
		}
		if err := x.Launch(s); err != nil {
			log.Fatal(err)
		}
		out := make([]float32, 3)
		if err := memory.CopyToHostAsync(s, out, d); err != nil {
			log.Fatal(err)
		}
		if err := s.Synchronize(); err != nil {
			log.Fatal(err)
		}
		fmt.Println("condition", on, "->", out)
		if err := errors.Join(x.Close(), g.Close()); err != nil {
			log.Fatal(err)
		}
	}
	// Output:
	// condition 1 -> [1.5 1.5 1.5]
	// condition 0 -> [0 0 0]
}

// Retention: a buffer that a graph's node uses cannot be freed under it;
// and Retain hands the graph a function to run once the graph and its
// Execs are gone (here it frees a buffer that only the graph used). DOT
// shows the graph's nodes and edges.
func ExampleGraph_Retain() {
	drv := fake.New()
	dev, _ := drv.Device(0)
	ctx, err := dev.PrimaryContext()
	if err != nil {
		log.Fatal(err)
	}
	defer ctx.Close()
	scratch, err := memory.Alloc[uint8](ctx, 64)
	if err != nil {
		log.Fatal(err)
	}
	g, err := graph.New(ctx)
	if err != nil {
		log.Fatal(err)
	}
	a, _ := graph.AddFill(g, scratch, uint8(0))
	if _, err := g.AddEmpty(a); err != nil {
		log.Fatal(err)
	}
	err = scratch.Close()
	fmt.Println("close under the graph refused:", errors.Is(err, graph.ErrRetained))

	var freed atomic.Bool
	done := make(chan struct{})
	if err := g.Retain(func() {
		// Runs on a goroutine of its own once g is gone: it may free.
		freed.Store(scratch.Close() == nil)
		close(done)
	}); err != nil {
		log.Fatal(err)
	}
	var dot strings.Builder
	if err := g.DOT(&dot, false); err != nil {
		log.Fatal(err)
	}
	fmt.Println("edges in the DOT dump:", strings.Count(dot.String(), "->"))
	if err := g.Close(); err != nil {
		log.Fatal(err)
	}
	<-done
	fmt.Println("freed by the Retain function:", freed.Load())
	// Output:
	// close under the graph refused: true
	// edges in the DOT dump: 1
	// freed by the Retain function: true
}
