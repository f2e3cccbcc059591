package module

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/memory"
)

func TestCSignature(t *testing.T) {
	src := `// a comment naming scale(int x)
#include <cuda_fp16.h>
template <typename T> __global__ void tmpl(T* p, int n) {}
extern "C" __global__ void __launch_bounds__(256) scale(float* __restrict__ out, const float *in, /* the factor */ float k, int n)
{
    if (threadIdx.x < n) out[threadIdx.x] = k * in[threadIdx.x];
}
extern "C" __global__ void none(void) {}
extern "C" __global__ void unnamed(unsigned int, double*, unsigned char* bytes, __half* h, size_t count) {}
extern "C" __global__ void twice(int a) {}
extern "C" __global__ void twice(float a) {}
`
	ps, ok := cSignature(src, "scale")
	require.True(t, ok)
	require.Len(t, ps, 4)
	assert.Equal(t, []string{"out", "in", "k", "n"}, []string{ps[0].name, ps[1].name, ps[2].name, ps[3].name})
	assert.Equal(t, "const float *in", ps[1].decl)
	assert.Equal(t, []reflect.Type{reflect.TypeFor[*memory.Buffer[float32]]()}, ps[0].bufs)
	assert.Equal(t, ps[0].bufs, ps[1].bufs)
	assert.Equal(t, "float32", ps[2].goTy)
	assert.Equal(t, "int32", ps[3].goTy)

	ps, ok = cSignature(src, "none")
	require.True(t, ok)
	assert.Empty(t, ps)

	ps, ok = cSignature(src, "unnamed")
	require.True(t, ok)
	require.Len(t, ps, 5)
	assert.Equal(t, "", ps[0].name)
	assert.Equal(t, "uint32", ps[0].goTy)
	assert.Equal(t, "", ps[1].name)
	assert.Equal(t, []reflect.Type{reflect.TypeFor[*memory.Buffer[float64]]()}, ps[1].bufs)
	assert.Nil(t, ps[2].bufs, "unsigned char* takes any bytes")
	assert.Nil(t, ps[3].bufs, "an unknown element type is not checked")
	assert.Equal(t, "uint64", ps[4].goTy)

	ps, ok = cSignature(src, "tmpl")
	require.True(t, ok)
	assert.Nil(t, ps[0].bufs, "a template parameter's type is not known")

	for _, name := range []string{"twice", "missing", "sca", "a(b"} {
		_, ok := cSignature(src, name)
		assert.False(t, ok, name)
	}
	_, ok = cSignature(`__global__ void m(int n
#ifdef X
, float f
#endif
) {}`, "m")
	assert.False(t, ok, "a directive in the list")
}
