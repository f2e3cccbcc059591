package conformance

import (
	"testing"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/module"
)

// testModulePTXVersions: the driver's JIT checks a PTX module's .version
// and .target, as the H200 with driver 580 (CUDA 13.0, which takes PTX ISA
// 9.0) shows: a version newer than the driver's is
// CUDA_ERROR_UNSUPPORTED_PTX_VERSION; a version older than the target
// allows (7.0 for sm_90, which needs 7.8), a target newer than the device,
// or no .target, is CUDA_ERROR_INVALID_PTX; no .version is not PTX at all
// (CUDA_ERROR_INVALID_IMAGE). Architecture-specific (sm_90a), older (sm_89)
// and virtual (compute_90) targets load on a compute capability 9.0 device.
func testModulePTXVersions(t *testing.T, drv *driver.Driver) {
	ctx := streamContext(t, drv, 0)
	if maj, _, err := ctx.Device().ComputeCapability(); err != nil || maj != 9 {
		t.Skipf("written for a compute capability 9.x device (%d, %v)", maj, err)
	}
	const body = ".address_size 64\n.visible .entry k(.param .u64 p)\n{\n\tret;\n}\n"
	for _, c := range []struct {
		header string
		want   error // nil: it loads
	}{
		{".version 8.0\n.target sm_90\n", nil},
		{".version 8.0\n.target sm_90a\n", nil},
		{".version 8.0\n.target sm_89\n", nil},
		{".version 8.0\n.target compute_90\n", nil},
		{".version 9.9\n.target sm_90\n", driver.ErrUnsupportedPTXVersion},
		{".version 99.9\n.target sm_90\n", driver.ErrUnsupportedPTXVersion},
		{".version 7.0\n.target sm_90\n", driver.ErrInvalidPTX},
		{".version 8.0\n.target sm_100\n", driver.ErrInvalidPTX},
		{".version 8.0\n", driver.ErrInvalidPTX},
		{".target sm_90\n", driver.ErrInvalidImage},
	} {
		m, err := module.Load(ctx, []byte(c.header+body))
		if c.want == nil {
			if noError(t, err, c.header) {
				must(t, m.Close())
			}
			continue
		}
		mustIs(t, err, c.want, c.header)
	}
}
