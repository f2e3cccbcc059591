package fake

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
)

// A kernel node given by its CUkernel (CUDA_KERNEL_NODE_PARAMS_v2's kern,
// func NULL) is taken as the driver takes it: the kernel runs as its
// library's function in the context the node runs in, loaded there on
// first use; a kern that is no live kernel is CUDA_ERROR_INVALID_VALUE
// (a node naming func and kern too runs func: graph's
// TestKernelNodeByCUkernel, on the fake and the H200); an exec's node set by its CUkernel runs the
// exec's context's function; and once the library is unloaded, a launch
// of a graph holding such a node fails as one of an unloaded module does.
func TestGraphKernelNodeByCUkernel(t *testing.T) {
	b := bound(t)
	s, err := b.StreamCreateWithPriority(0, 0)
	require.NoError(t, err)
	lib, err := b.LibraryLoadData([]byte(libraryPTX))
	require.NoError(t, err)
	k, err := b.LibraryGetKernel(lib, "bump")
	require.NoError(t, err)
	one := [3]uint32{1, 1, 1}

	g, err := b.GraphCreate(0)
	require.NoError(t, err)
	n, err := b.GraphAddKernelNode(g, nil, &backend.KernelNodeParams{Kernel: k, Grid: one, Block: one})
	require.NoError(t, err, "a node by its CUkernel, in the current context")
	assert.Equal(t, 1, loadedModules(b), "the library was loaded into the node's context")

	_, err = b.GraphAddKernelNode(g, nil, &backend.KernelNodeParams{Kernel: lib, Grid: one, Block: one})
	assert.ErrorIs(t, err, driver.ErrInvalidValue, "a library is no kernel")
	_, err = b.GraphAddKernelNode(g, nil, &backend.KernelNodeParams{Kernel: k, Grid: [3]uint32{}, Block: one})
	assert.ErrorIs(t, err, driver.ErrInvalidValue, "checked as a launch is")

	counter, _, err := b.LibraryGetGlobal(lib, "counter")
	require.NoError(t, err)
	read := func() uint32 {
		var v uint32
		require.NoError(t, b.MemcpyDtoH(unsafe.Pointer(&v), counter, 4))
		return v
	}
	x, err := b.GraphInstantiate(g, 0)
	require.NoError(t, err)
	require.NoError(t, b.GraphLaunch(x, s))
	require.NoError(t, b.GraphLaunch(x, s))
	require.NoError(t, b.StreamSynchronize(s))
	assert.EqualValues(t, 2, read(), "the node ran the library's kernel, once a launch")

	require.NoError(t, b.GraphExecKernelNodeSetParams(x, n, &backend.KernelNodeParams{Kernel: k, Grid: one, Block: [3]uint32{2, 1, 1}}))
	require.NoError(t, b.GraphLaunch(x, s))
	require.NoError(t, b.StreamSynchronize(s))
	assert.EqualValues(t, 3, read(), "set by its CUkernel, the exec's node runs it in the exec's context")

	require.NoError(t, b.LibraryUnload(lib))
	_, err = b.GraphAddKernelNode(g, nil, &backend.KernelNodeParams{Kernel: k, Grid: one, Block: one})
	assert.ErrorIs(t, err, driver.ErrInvalidValue, "the kernel of an unloaded library")
	err = b.GraphLaunch(x, s)
	if err == nil {
		err = b.StreamSynchronize(s)
	}
	assert.Error(t, err, "a launch after the unload runs no unloaded code")

	require.NoError(t, b.GraphExecDestroy(x))
	require.NoError(t, b.GraphDestroy(g))
	require.NoError(t, b.StreamDestroy(s))
}
