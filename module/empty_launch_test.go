package module_test

import (
	"fmt"
	"log"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/conformance/segscale"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/module"
	"github.com/nocgo/cuda/stream"
)

// An empty grid (Cover(0, b), ForElems(0)) launches nothing and returns nil,
// on every launch path, without asking the driver; a wrong argument or
// block is still refused, and a negative grid too.
func TestEmptyLaunchIsANoOp(t *testing.T) {
	drv := fakeDriver(fake.CountCalls())
	ctx, s := setup(t, drv)
	m := compileSegscale(t, ctx, module.Options{NoCache: true})
	f, err := m.Function(segscale.Name)
	require.NoError(t, err)
	in, out := alloc(t, ctx, 1), alloc(t, ctx, 1)
	launches := func() int64 { return fake.Of(drv).Calls()["cuLaunchKernel"] }

	for _, cfg := range []module.Config{
		{Grid: module.Cover(0, 128), Block: module.Dim(128)},
		module.ForElems(0),
		{Grid: module.Dim(4, 0), Block: module.Dim(32)},
	} {
		require.NoError(t, f.Launch(s, cfg, out, in, int32(0)), "%v", cfg.Grid)
		args, err := f.Args(out, in, int32(0))
		require.NoError(t, err)
		require.NoError(t, f.LaunchArgs(s, cfg, args), "%v", cfg.Grid)
	}
	assert.Zero(t, launches(), "an empty launch reaches no driver")

	empty := module.ForElems(0)
	assert.ErrorIs(t, f.Launch(s, empty, out, in, 1.5), module.ErrArgs, "the arguments are checked all the same")
	assert.ErrorIs(t, f.Launch(s, module.Config{Grid: module.Dim(0)}, out, in, int32(0)), module.ErrConfig, "and the block")
	assert.ErrorIs(t, f.Launch(s, module.Config{Grid: module.Dim(-1), Block: module.Dim(32)}, out, in, int32(0)), module.ErrConfig, "a negative grid is a mistake")
	assert.Zero(t, launches())

	require.NoError(t, f.Launch(s, module.ForElems(1), out, in, int32(1)))
	require.NoError(t, s.Synchronize())
	assert.Equal(t, int64(1), launches(), "a grid of one block launches")
}

func TestForElems(t *testing.T) {
	for n, blocks := range map[int]int{0: 0, 1: 1, 256: 1, 257: 2, 1 << 20: 4096} {
		cfg := module.ForElems(n)
		assert.Equal(t, module.Dim(module.ElemsBlock), cfg.Block, "ForElems(%d)", n)
		assert.Equal(t, module.Dim3{X: blocks, Y: 1, Z: 1}, cfg.Grid, "ForElems(%d)", n)
		assert.GreaterOrEqual(t, cfg.Grid.Count()*cfg.Block.Count(), n)
	}
}

// ForElems is the one-line shape for n elements, and an empty input needs
// no special case: its launch launches nothing.
func ExampleForElems() {
	drv := fake.New(fake.Kernel("scale", scaleBody))
	dev, _ := drv.Device(0)
	cc, err := dev.PrimaryContext()
	if err != nil {
		log.Fatal(err)
	}
	defer cc.Close()
	m, err := module.Compile(cc, scaleSource, module.Options{NoCache: true})
	if err != nil {
		log.Fatal(err)
	}
	defer m.Close()
	f, err := m.Function("scale")
	if err != nil {
		log.Fatal(err)
	}
	s, err := stream.New(cc, stream.Options{Flags: stream.NonBlocking})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	for _, host := range [][]float32{{1, 2, 3}, {}} {
		in, err := memory.FromSliceOn(s, host)
		if err != nil {
			log.Fatal(err)
		}
		out, err := memory.Alloc[float32](cc, len(host))
		if err != nil {
			log.Fatal(err)
		}
		n := len(host)
		if err := f.Launch(s, module.ForElems(n), out, in, float32(2), int32(n)); err != nil {
			log.Fatal(err)
		}
		got, err := memory.ToSliceOn(s, out)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(got)
		in.Close()
		out.Close()
	}
	// Output:
	// [2 4 6]
	// []
}
