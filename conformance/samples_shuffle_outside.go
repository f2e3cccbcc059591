package conformance

import (
	"testing"

	"github.com/nocgo/cuda/conformance/samples"
	"github.com/nocgo/cuda/module"
)

// testSampleShuffleOutside runs the shuffles of NVIDIA's reduction sample
// that read lanes taking no part (outside the member mask, or with no
// thread): each thread's result as the H200 gives it, and reduce7's block
// sum exact.
func testSampleShuffleOutside(t *testing.T, r sampleRig) {
	m := r.compile(t, "samples_shuffle_outside.cu", samples.ShuffleOutsideSource, module.Options{})
	run := func(name string, threads, outs int) []float32 {
		dout := deviceCopy(t, r.ctx, make([]float32, outs))
		must(t, fn(t, m, name).Launch(r.s, module.Config{Grid: module.Dim(1), Block: module.Dim(threads)},
			deviceCopy(t, r.ctx, samples.ShuffleInput(256)), dout))
		return hostCopy(t, r.s, dout)
	}
	sameInts(t, "outside the member mask", run(samples.ShuffleOutsideMask, 32, 32), samples.ShuffleOutsideMaskWant())
	sameInts(t, "lanes with no thread", run(samples.ShuffleMissingLanes, 8, 8), samples.ShuffleMissingLanesWant())
	sameInts(t, "reduce7's block sum", run(samples.ShuffleReduce7, 256, 1), []float32{samples.ShuffleReduce7Want()})
}
