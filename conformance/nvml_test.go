package conformance_test

import (
	"os"
	"os/exec"
	"testing"

	"github.com/nocgo/cuda/conformance"
	"github.com/nocgo/cuda/cudatest"
	"github.com/nocgo/cuda/cudatest/fakekernels"
	"github.com/nocgo/cuda/fake"
)

// TestFakeNVMLXid runs conformance.RunNVMLXid on a fake of its own.
func TestFakeNVMLXid(t *testing.T) {
	conformance.RunNVMLXid(t, fake.NewBackend(fakekernels.Options()...))
}

// xidChildEnv marks the child process TestRealNVMLXid runs the case in.
const xidChildEnv = "NOCGO_CUDA_NVML_XID_CHILD"

// TestRealNVMLXid runs conformance.RunNVMLXid on the GPU, in a child
// process of this test binary: the fault poisons the process, which
// TestReal's faults case has also done by then.
func TestRealNVMLXid(t *testing.T) {
	if os.Getenv(xidChildEnv) == "1" {
		conformance.RunNVMLXid(t, cudatest.RealBackend(t))
		return
	}
	cudatest.RealBackend(t) // skipped without a driver, failed with NOCGO_CUDA_REQUIRE_GPU=1
	cmd := exec.Command(os.Args[0], "-test.run=^TestRealNVMLXid$", "-test.v")
	cmd.Env = append(os.Environ(), xidChildEnv+"=1")
	out, err := cmd.CombinedOutput()
	t.Logf("child:\n%s", out)
	if err != nil {
		t.Fatalf("the child failed: %v", err)
	}
}
