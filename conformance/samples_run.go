package conformance

import (
	"testing"

	"github.com/nocgo/cuda/driver/backend"
)

// RunSamples runs the suite's samples group alone (NVIDIA's CUDA samples:
// reductions, scans, histogram, transpose, cooperative groups, the LLM
// kernels) against a backend: for checks that want every sample kernel
// run once, such as the fake's in-kernel race checks. Run includes it.
func RunSamples(t *testing.T, api backend.API) {
	testSamples(t, Open(t, api))
}
