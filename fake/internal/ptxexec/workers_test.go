package ptxexec

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestParallelWorkers: blocks on several workers give the results of one
// worker for kernels whose blocks are independent except for atomics.
func TestParallelWorkers(t *testing.T) {
	p, mem := load(t, "90")
	const n = 5000
	in := make([]int32, n)
	var want int32
	for i := range in {
		in[i] = int32(i%97 - 40)
		want += in[i]
	}
	pin := mem.i32s(in)
	for _, workers := range []int{1, 2, 4, 7} {
		out := mem.i32s([]int32{0, 0})
		k := p.Kernels["warp_sum"]
		l := &Launch{Grid: dim((n + 127) / 128), Block: dim(128), Params: params(t, k, pin, out, int32(n)), Mem: mem, Workers: workers}
		require.NoError(t, k.Run(l))
		assert.Equal(t, want, mem.readI32(out, 1)[0], "%d workers", workers)
	}
}

func TestParallelWorkersFault(t *testing.T) {
	p, mem := load(t, "90")
	buf := mem.i32s(make([]int32, 64))
	k := p.Kernels["oob_write"]
	// Every block past the first writes out of bounds; the lowest one is
	// reported, as with one worker.
	l := &Launch{Grid: dim(16), Block: dim(64), Params: params(t, k, buf, int32(0)), Mem: mem, Workers: 4}
	err := k.Run(l)
	var f *Fault
	require.True(t, errors.As(err, &f), "%v", err)
	assert.Equal(t, CodeIllegalAddress, f.Code)
	assert.Equal(t, [3]uint32{1, 0, 0}, f.Block, "block 1 is always taken, and faults")
}
