package fake

import (
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
)

func TestFailNthChangesNothing(t *testing.T) {
	b := bound(t,
		FailNth("cuMemAlloc_v2", 2, driver.ErrOutOfMemory),
		FailNth("cuStreamCreateWithPriority", 1, driver.ErrInvalidValue),
		FailNth("cuMemcpyDtoH", 1, driver.ErrUnknown),
		FailNth("nvrtcCompileProgram", 1, driver.Result(backend.NVRTCErrorCompilation)),
	)
	p, err := b.MemAlloc(16)
	require.NoError(t, err, "the first call passes")
	free, _, err := b.MemGetInfo()
	require.NoError(t, err)
	_, err = b.MemAlloc(16)
	assert.ErrorIs(t, err, driver.ErrOutOfMemory, "the second fails")
	after, _, err := b.MemGetInfo()
	require.NoError(t, err)
	assert.Equal(t, free, after, "and allocated nothing")
	q, err := b.MemAlloc(16)
	require.NoError(t, err, "each rule fires once")

	_, err = b.StreamCreateWithPriority(0, 0)
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
	s, err := b.StreamCreateWithPriority(0, 0)
	require.NoError(t, err)

	require.NoError(t, b.MemsetD8(p, 3, 16))
	out := []byte{9}
	assert.ErrorIs(t, b.MemcpyDtoH(unsafe.Pointer(&out[0]), p, 1), driver.ErrUnknown)
	assert.Equal(t, byte(9), out[0], "the failed copy wrote nothing")
	require.NoError(t, b.MemcpyDtoH(unsafe.Pointer(&out[0]), p, 1))
	assert.Equal(t, byte(3), out[0])

	nv, _ := b.NVRTC()
	prog, err := nv.CreateProgram("", "empty.cu", nil, nil)
	require.NoError(t, err)
	assert.Equal(t, backend.NVRTCErrorCompilation, compileCode(nv.Compile(prog, nil)))
	require.NoError(t, nv.Compile(prog, nil))
	require.NoError(t, nv.DestroyProgram(prog))

	require.NoError(t, b.StreamDestroy(s))
	require.NoError(t, b.MemFree(p))
	require.NoError(t, b.MemFree(q))
}

func TestLeaksListsLiveObjects(t *testing.T) {
	b := newBackend(Kernel("k", func(Thread) {}))
	require.NoError(t, b.Init(0))
	assert.Empty(t, b.Leaks())
	func() {
		bb := b
		lockThread(t)
		prim, err := bb.DevicePrimaryCtxRetain(0)
		require.NoError(t, err)
		require.NoError(t, bb.CtxPushCurrent(prim))
		defer bb.CtxPopCurrent()
		_, err = bb.MemAlloc(100)
		require.NoError(t, err)
		_, err = bb.StreamCreateWithPriority(0, 0)
		require.NoError(t, err)
		_, err = bb.EventCreate(0)
		require.NoError(t, err)
		_, err = bb.MemHostAlloc(10, 0)
		require.NoError(t, err)
		_, err = bb.ModuleLoadData([]byte(".version 8.8\n.target sm_90\n.visible .entry k()\n{\n}\n"))
		require.NoError(t, err)
		own, err := bb.CtxCreate(0, 0)
		require.NoError(t, err)
		_, err = bb.CtxPopCurrent()
		require.NoError(t, err)
		_ = own
	}()
	leaks := b.Leaks()
	require.Len(t, leaks, 7, "%v", leaks)
	for i, want := range []string{"primary context", "context", "stream", "event", "module", "device memory", "pinned host memory"} {
		assert.True(t, strings.HasPrefix(leaks[i].String(), want), "line %d: %q", i, leaks[i])
	}
	assert.Contains(t, leaks[5].String(), "100 bytes on device 0")
	assert.Equal(t, Leak{Kind: backend.LeakDeviceMemory, Handle: leaks[5].Handle, Context: leaks[5].Context, Size: 100, Site: "faults_test.go:69 (TestLeaksListsLiveObjects.func2)"}, leaks[5], "structured")
	assert.Equal(t, leaks, b.Leaks(), "stable order")

	require.NoError(t, b.DevicePrimaryCtxRelease(0))
	leaks = b.Leaks()
	require.Len(t, leaks, 1, "releasing the primary context destroyed what was made in it")
	assert.Equal(t, backend.LeakContext, leaks[0].Kind)
}
