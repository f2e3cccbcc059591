package module_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/conformance/segscale"
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/module"
)

// otherNVRTC is the fake's compiler under another identity: to the cache it
// is what libnvrtc is beside the fake, another implementation reporting the
// same version.
type otherNVRTC struct{ backend.NVRTC }

// Implementation names the other implementation.
func (otherNVRTC) Implementation() string { return "other compiler" }

// otherCompiler is a fake backend whose run-time compiler is otherNVRTC.
type otherCompiler struct{ fake.Backend }

func (o otherCompiler) NVRTC() (backend.NVRTC, error) {
	nv, err := o.Backend.NVRTC()
	if err != nil {
		return nil, err
	}
	return otherNVRTC{nv}, nil
}

// TestCacheNVRTCIdentity: an entry compiled by one NVRTC implementation is
// not a hit for another one of the same version sharing the cache directory
// (the fake's entries, whose kernels do nothing on a GPU, must never reach
// the real driver).
func TestCacheNVRTCIdentity(t *testing.T) {
	dir := t.TempDir()
	opts := module.Options{Name: "identity.cu", CacheDir: dir}

	fakeDrv := fakeDriver()
	otherDrv, err := driver.New(otherCompiler{fake.NewBackend(fakeOptions()...)})
	require.NoError(t, err)
	ma1, mi1, err := fakeDrv.NVRTCVersion()
	require.NoError(t, err)
	ma2, mi2, err := otherDrv.NVRTCVersion()
	require.NoError(t, err)
	require.Equal(t, [2]int{ma1, mi1}, [2]int{ma2, mi2}, "the version alone cannot tell them apart")

	ctx, _ := setup(t, fakeDrv)
	first := compileSegscale(t, ctx, opts)
	assert.False(t, first.Cached())
	again := compileSegscale(t, ctx, opts)
	assert.True(t, again.Cached(), "the same compiler hits its own entry")

	octx, ostream := setup(t, otherDrv)
	other := compileSegscale(t, octx, opts)
	assert.False(t, other.Cached(), "another compiler's entry is not a hit")
	f, err := other.Function(segscale.Name)
	require.NoError(t, err)
	runSegscale(t, octx, ostream, f, 100)
	otherAgain := compileSegscale(t, octx, opts)
	assert.True(t, otherAgain.Cached(), "each compiler has its own entry")

	entries, err := filepath.Glob(filepath.Join(dir, "*.entry"))
	require.NoError(t, err)
	assert.Len(t, entries, 2, "one entry per compiler")
}
