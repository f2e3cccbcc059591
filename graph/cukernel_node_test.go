package graph_test

import (
	"runtime"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/cudatest"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/fake"
)

// bumpPTX is a library kernel that adds one to its global counter.
const bumpPTX = `.version 7.8
.target sm_90
.address_size 64

.visible .global .align 4 .u32 counter;

.visible .entry bump()
{
	.reg .b32 %r<3>;
	ld.global.u32 %r1, [counter];
	add.u32 %r2, %r1, 1;
	st.global.u32 [counter], %r2;
	ret;
}
`

// A graph kernel node given by its CUkernel (CUDA_KERNEL_NODE_PARAMS_v2's
// kern with func 0) runs its library's kernel in the current context, on
// the fake as on the real driver; a node naming both func and kern is
// taken (the H200 takes it: func runs, kern is not read). The same raw
// calls run on both backends (the real one where it loads).
func TestKernelNodeByCUkernel(t *testing.T) {
	for _, tc := range []struct {
		name string
		api  func(t *testing.T) backend.API
	}{
		{"fake", func(*testing.T) backend.API { return fake.NewBackend() }},
		{"real", func(t *testing.T) backend.API { return cudatest.RealBackend(t) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := tc.api(t)
			require.NoError(t, b.Init(0))
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			ctx, err := b.DevicePrimaryCtxRetain(0)
			require.NoError(t, err)
			defer b.DevicePrimaryCtxRelease(0)
			require.NoError(t, b.CtxPushCurrent(ctx))
			defer b.CtxPopCurrent()

			s, err := b.StreamCreateWithPriority(backend.StreamNonBlocking, 0)
			require.NoError(t, err)
			defer b.StreamDestroy(s)
			libs, ok := b.(backend.Libraries)
			require.True(t, ok, "the backend has cuLibrary")
			lib, err := libs.LibraryLoadData([]byte(bumpPTX))
			require.NoError(t, err)
			defer libs.LibraryUnload(lib)
			k, err := libs.LibraryGetKernel(lib, "bump")
			require.NoError(t, err)
			counter, _, err := libs.LibraryGetGlobal(lib, "counter")
			require.NoError(t, err)
			require.NoError(t, b.MemsetD8(counter, 0, 4))
			one := [3]uint32{1, 1, 1}

			gr, ok := b.(backend.Graphs)
			require.True(t, ok, "the backend has graphs")
			g, err := gr.GraphCreate(0)
			require.NoError(t, err)
			defer gr.GraphDestroy(g)
			n, err := gr.GraphAddKernelNode(g, nil, &backend.KernelNodeParams{Kernel: k, Grid: one, Block: one})
			require.NoError(t, err, "a node by its CUkernel")
			f, err := libs.KernelGetFunction(k)
			require.NoError(t, err)
			both, err := gr.GraphCreate(0)
			require.NoError(t, err)
			defer gr.GraphDestroy(both)
			_, err = gr.GraphAddKernelNode(both, nil, &backend.KernelNodeParams{Func: f, Kernel: k, Grid: one, Block: one})
			require.NoError(t, err, "func and kern both: func runs, kern is not read")

			x, err := gr.GraphInstantiate(g, 0)
			require.NoError(t, err)
			defer gr.GraphExecDestroy(x)
			require.NoError(t, gr.GraphLaunch(x, s))
			require.NoError(t, gr.GraphLaunch(x, s))
			require.NoError(t, b.StreamSynchronize(s))
			var v uint32
			require.NoError(t, b.MemcpyDtoH(unsafe.Pointer(&v), counter, 4))
			assert.EqualValues(t, 2, v, "the node ran the library's kernel, once a launch")

			nodes, ok := b.(backend.GraphNodes)
			require.True(t, ok, "the backend updates nodes")
			require.NoError(t, nodes.GraphExecKernelNodeSetParams(x, n, &backend.KernelNodeParams{Kernel: k, Grid: one, Block: one}))
			require.NoError(t, gr.GraphLaunch(x, s))
			require.NoError(t, b.StreamSynchronize(s))
			require.NoError(t, b.MemcpyDtoH(unsafe.Pointer(&v), counter, 4))
			assert.EqualValues(t, 3, v, "an exec's node set by its CUkernel")

			xb, err := gr.GraphInstantiate(both, 0)
			require.NoError(t, err)
			defer gr.GraphExecDestroy(xb)
			require.NoError(t, gr.GraphLaunch(xb, s))
			require.NoError(t, b.StreamSynchronize(s))
			require.NoError(t, b.MemcpyDtoH(unsafe.Pointer(&v), counter, 4))
			assert.EqualValues(t, 4, v, "a node naming func and kern runs once")
		})
	}
}
