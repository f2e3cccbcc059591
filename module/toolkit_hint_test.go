package module_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/cudatest"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/module"
)

// A CUDA header that NVRTC cannot open, with no toolkit found: the compile
// error says where the library looked and names NOCGO_CUDA_INCLUDE.
func TestMissingToolkitHeaderHint(t *testing.T) {
	nv := cudatest.NVRTC(t)
	empty := t.TempDir()
	t.Setenv(module.ToolkitIncludeEnv, "")
	t.Setenv("CUDA_HOME", empty+"/none")
	t.Setenv("CUDA_PATH", "")
	t.Setenv("PATH", empty) // no python: no pip wheels
	t.Setenv("VIRTUAL_ENV", "")
	t.Setenv("HOME", empty)
	t.Setenv("CONDA_PREFIX", "")
	if dirs := module.ToolkitIncludePaths(); dirs != nil {
		t.Skipf("a CUDA toolkit is installed here: %v", dirs)
	}
	drv := fake.New(fake.NVRTC(nv))
	dev, err := drv.Device(0)
	require.NoError(t, err)
	cc, err := dev.PrimaryContext()
	require.NoError(t, err)
	defer cc.Close()
	const src = "#include <cuda_fp16.h>\nextern \"C\" __global__ void h(__half* p) { p[0] = __float2half(1.0f); }\n"
	_, err = module.Compile(cc, src, module.Options{NoCache: true})
	var ce *module.CompileError
	require.True(t, errors.As(err, &ce), "%v", err)
	assert.Contains(t, ce.Hint, `"cuda_fp16.h" is not in Options.Headers, Options.IncludePaths, and no CUDA toolkit headers were found: looked in $NOCGO_CUDA_INCLUDE (unset), $CUDA_HOME/include (`+empty+`/none/include, absent), $CUDA_PATH/include (unset), /usr/local/cuda/include (absent)`)
	assert.Contains(t, err.Error(), "\nhint: ")
	assert.Contains(t, err.Error(), "set NOCGO_CUDA_INCLUDE to the include directory that holds it")

	t.Setenv(module.ToolkitIncludeEnv, empty+"/nothing")
	_, err = module.Compile(cc, src, module.Options{NoCache: true})
	require.True(t, errors.As(err, &ce))
	assert.Contains(t, ce.Hint, "which names no directory that exists")

	_, err = module.Compile(cc, "extern \"C\" __global__ void k() { syntax error }", module.Options{NoCache: true})
	require.True(t, errors.As(err, &ce))
	assert.Empty(t, ce.Hint, "no hint for other errors")
}
