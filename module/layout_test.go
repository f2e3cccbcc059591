package module_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/conformance/segscale"
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/module"
)

var segscaleParams = []module.Param{{0, 8}, {8, 8}, {16, 4}}

// loadSegscale returns segscale's kernel from a fresh module: compiled
// (CUBIN with its PTX kept) or, cubinOnly, loaded from the CUBIN alone, so
// that no PTX signature can stand in for the driver's layout.
func loadSegscale(t *testing.T, drv *driver.Driver, cubinOnly bool) (*module.Function, func(args ...any) error) {
	t.Helper()
	ctx, s := setup(t, drv)
	m := compileSegscale(t, ctx, module.Options{NoCache: true})
	if cubinOnly {
		cm, err := module.Load(ctx, m.Image())
		require.NoError(t, err)
		t.Cleanup(func() { cm.Close() })
		m = cm
	}
	f, err := m.Function(segscale.Name)
	require.NoError(t, err)
	out := alloc(t, ctx, 64)
	cfg := module.Config{Grid: module.Dim(1), Block: module.Dim(64)}
	return f, func(args ...any) error {
		if len(args) == 0 {
			args = []any{out, out, int32(64)}
		}
		for i, a := range args {
			if a == nil {
				args[i] = out
			}
		}
		return f.Launch(s, cfg, args...)
	}
}

// A cuFuncGetParamInfo failing once with CUDA_ERROR_INVALID_VALUE, whatever
// the call, is not read as the end of the parameter list: the layout is the
// kernel's, and a launch with too few arguments is refused.
func TestParamInfoInvalidValueOnce(t *testing.T) {
	for _, cubinOnly := range []bool{false, true} {
		for k := 1; k <= 6; k++ {
			t.Run(fmt.Sprintf("cubin=%v/call%d", cubinOnly, k), func(t *testing.T) {
				drv := fakeDriver(fake.FailNth("cuFuncGetParamInfo", k, driver.ErrInvalidValue))
				f, launch := loadSegscale(t, drv, cubinOnly)
				params, err := f.Params()
				require.NoError(t, err)
				assert.Equal(t, segscaleParams, params)
				assert.ErrorIs(t, launch(nil, nil), module.ErrArgs, "2 arguments for 3 parameters")
				_, err = f.Args(nil, nil)
				assert.Error(t, err)
				require.NoError(t, launch())
			})
		}
	}
}

// A failure of another kind is no layout: it is not cached (neither as a
// short layout nor as "no layout"), the launch that meets it fails with it,
// and a later launch reads the layout again.
func TestParamInfoTransientFailure(t *testing.T) {
	for _, code := range []driver.Result{driver.ErrUnknown, driver.ErrOutOfMemory, driver.ErrInvalidContext} {
		for _, cubinOnly := range []bool{false, true} {
			t.Run(fmt.Sprintf("%v/cubin=%v", code, cubinOnly), func(t *testing.T) {
				// Call 1 reads parameter 0 for Module.Function; call 2
				// fails there; call 3, the first launch's read, fails too.
				drv := fakeDriver(
					fake.FailNth("cuFuncGetParamInfo", 2, code),
					fake.FailNth("cuFuncGetParamInfo", 3, code),
				)
				f, launch := loadSegscale(t, drv, cubinOnly)
				err := launch()
				require.Error(t, err, "the first launch cannot know the layout")
				assert.ErrorIs(t, err, code)
				assert.NotErrorIs(t, err, module.ErrNoLayout)
				require.NoError(t, launch(), "a later launch reads it")
				params, err := f.Params()
				require.NoError(t, err)
				assert.Equal(t, segscaleParams, params)
				assert.ErrorIs(t, launch(nil, nil), module.ErrArgs)
			})
		}
	}
}

// Params and Args retry an unread layout as launches do.
func TestParamInfoRetriedByParamsAndArgs(t *testing.T) {
	drv := fakeDriver(
		fake.FailNth("cuFuncGetParamInfo", 1, driver.ErrUnknown),
		fake.FailNth("cuFuncGetParamInfo", 2, driver.ErrUnknown),
		fake.FailNth("cuFuncGetParamInfo", 3, driver.ErrUnknown),
	)
	f, launch := loadSegscale(t, drv, true)
	_, err := f.Params()
	assert.ErrorIs(t, err, driver.ErrUnknown)
	_, err = f.Args(nil, nil, int32(1))
	assert.ErrorIs(t, err, driver.ErrUnknown)
	a, err := f.Args(nil, nil, int32(1))
	require.Error(t, err) // nil is refused: the layout is read now
	assert.Nil(t, a)
	assert.ErrorIs(t, err, module.ErrArgs)
	params, err := f.Params()
	require.NoError(t, err)
	assert.Equal(t, segscaleParams, params)
	require.NoError(t, launch())
}

// A driver that says the call is not supported falls back to the PTX
// signature, as a missing entry point does; a CUBIN alone then has no
// layout, for good.
func TestParamInfoNotSupported(t *testing.T) {
	drv := fakeDriver(fake.FailNth("cuFuncGetParamInfo", 1, driver.ErrNotSupported))
	f, launch := loadSegscale(t, drv, false)
	params, err := f.Params()
	require.NoError(t, err)
	assert.Equal(t, segscaleParams, params)
	require.NoError(t, launch())

	drv = fakeDriver(fake.FailNth("cuFuncGetParamInfo", 1, driver.ErrNotSupported))
	f, launch = loadSegscale(t, drv, true)
	_, err = f.Params()
	assert.ErrorIs(t, err, module.ErrNoLayout)
	assert.ErrorIs(t, launch(), module.ErrNoLayout)
}

// Launches racing the first read of a layout all see the same, whole
// layout (run with -race).
func TestParamInfoConcurrentRead(t *testing.T) {
	drv := fakeDriver(fake.FailNth("cuFuncGetParamInfo", 1, driver.ErrUnknown))
	_, launch := loadSegscale(t, drv, true)
	var wg sync.WaitGroup
	errs := make([]error, 8)
	short := make([]error, 8)
	for i := range errs {
		wg.Go(func() {
			errs[i] = launch()
			short[i] = launch(nil, nil)
		})
	}
	wg.Wait()
	for i := range errs {
		assert.NoError(t, errs[i])
		assert.ErrorIs(t, short[i], module.ErrArgs)
	}
}
