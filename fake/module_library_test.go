package fake

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
)

// libraryPTX is a kernel the interpreter runs, and a global.
const libraryPTX = `.version 7.8
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

// A library is one parsed image; each context gets its own module of it
// on first use, the same one after, and a new one after its context's
// modules went with a reset; the unload takes every instance.
func TestLibraryInstances(t *testing.T) {
	b := bound(t, Devices(2))
	lib, err := b.LibraryLoadData([]byte(libraryPTX))
	require.NoError(t, err)
	k, err := b.LibraryGetKernel(lib, "bump")
	require.NoError(t, err)
	again, err := b.LibraryGetKernel(lib, "bump")
	require.NoError(t, err)
	assert.Equal(t, k, again)
	assert.Zero(t, loadedModules(b), "loaded, but in no context yet")

	m0, err := b.LibraryGetModule(lib)
	require.NoError(t, err)
	f0, err := b.KernelGetFunction(k)
	require.NoError(t, err)
	mod0, err := b.LibraryGetModule(lib)
	require.NoError(t, err)
	assert.Equal(t, m0, mod0, "one instance per context")
	byName, err := b.ModuleGetFunction(m0, "bump")
	require.NoError(t, err)
	assert.Equal(t, f0, byName, "the kernel's function is its module's")
	p0, size, err := b.LibraryGetGlobal(lib, "counter")
	require.NoError(t, err)
	assert.EqualValues(t, 4, size)

	ctx1, err := b.DevicePrimaryCtxRetain(1)
	require.NoError(t, err)
	require.NoError(t, b.CtxPushCurrent(ctx1))
	f1, err := b.KernelGetFunction(k)
	require.NoError(t, err)
	assert.NotEqual(t, f0, f1)
	p1, _, err := b.LibraryGetGlobal(lib, "counter")
	require.NoError(t, err)
	assert.NotEqual(t, p0, p1, "each context has its own global")
	_, err = b.CtxPopCurrent()
	require.NoError(t, err)
	require.NoError(t, b.DevicePrimaryCtxReset(1))
	ctx1, err = b.DevicePrimaryCtxRetain(1)
	require.NoError(t, err)
	require.NoError(t, b.CtxPushCurrent(ctx1))
	f1b, err := b.KernelGetFunction(k)
	require.NoError(t, err, "loaded again after the reset unloaded it")
	assert.NotEqual(t, f1, f1b)
	_, err = b.CtxPopCurrent()
	require.NoError(t, err)

	threads, err := b.KernelGetAttribute(backend.FuncMaxThreadsPerBlock, k, 1)
	require.NoError(t, err)
	want, err := b.FuncGetAttribute(backend.FuncMaxThreadsPerBlock, f0)
	require.NoError(t, err)
	assert.Equal(t, want, threads)
	_, err = b.KernelGetAttribute(backend.FuncMaxThreadsPerBlock, k, 2)
	assert.ErrorIs(t, err, driver.ErrInvalidDevice)

	require.NoError(t, b.LibraryUnload(lib))
	_, err = b.ModuleGetFunction(m0, "bump")
	assert.Error(t, err, "the instance is unloaded")
	_, err = b.KernelGetFunction(k)
	assert.ErrorIs(t, err, driver.ErrInvalidHandle)
	assert.ErrorIs(t, b.LibraryUnload(lib), driver.ErrInvalidHandle)
	_, err = b.LibraryGetKernel(lib, "bump")
	assert.ErrorIs(t, err, driver.ErrInvalidHandle)
	assert.Zero(t, loadedModules(b), "the unload took every instance")
	require.NoError(t, b.DevicePrimaryCtxRelease(1), "the reset dropped the first reference")
	for _, l := range b.Leaks() {
		assert.NotEqual(t, 1, l.Device, "nothing left on device 1: %v", l)
	}
}

// loadedModules counts the modules loaded in b.
func loadedModules(b *fakeBackend) int {
	n := 0
	for _, l := range b.Leaks() {
		if l.Kind == backend.LeakModule {
			n++
		}
	}
	return n
}

// The image is read at load: what is no image, or no PTX the fake runs, is
// refused there; what depends on the device (a newer architecture) waits
// for a context.
func TestLibraryLoadChecks(t *testing.T) {
	b := bound(t)
	_, err := b.LibraryLoadData(nil)
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
	_, err = b.LibraryLoadData([]byte("garbage"))
	assert.ErrorIs(t, err, driver.ErrInvalidImage)
	_, err = b.LibraryLoadData([]byte(".version 7.8\n.target sm_90\n.address_size 64\n.visible .entry broken(\n"))
	assert.ErrorIs(t, err, driver.ErrInvalidPTX)

	newer := []byte(".version 8.7\n.target sm_120\n.address_size 64\n.visible .entry k()\n{\n\tret;\n}\n")
	lib, err := b.LibraryLoadData(newer)
	require.NoError(t, err, "no device checked yet")
	_, err = b.LibraryGetModule(lib)
	assert.ErrorIs(t, err, driver.ErrInvalidPTX, "PTX for a newer device than this context's")
	_, err = b.LibraryGetKernel(lib, "missing")
	assert.ErrorIs(t, err, driver.ErrNotFound)
	_, err = b.LibraryGetKernel(lib, "k\x00")
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
	require.NoError(t, b.LibraryUnload(lib))

	image := []byte(libraryPTX)
	lib, err = b.LibraryLoadData(image)
	require.NoError(t, err)
	copy(image, "garbage")
	_, err = b.LibraryGetModule(lib)
	require.NoError(t, err, "the image was copied at load")
	require.NoError(t, b.LibraryUnload(lib))
}

// Without a current context, the calls that instantiate are refused.
func TestLibraryNeedsAContextToInstantiate(t *testing.T) {
	b := newBackend()
	require.NoError(t, b.Init(0))
	lib, err := b.LibraryLoadData([]byte(libraryPTX))
	require.NoError(t, err, "loading needs no context")
	_, err = b.LibraryGetModule(lib)
	assert.ErrorIs(t, err, driver.ErrInvalidContext)
	require.NoError(t, b.LibraryUnload(lib))
}
