package memory_test

import (
	"encoding/hex"
	"os"
	"os/exec"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/conformance"
	"github.com/nocgo/cuda/cudatest"
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/memory"
)

// The environment of the IPC child process (TestIPCChild).
const (
	ipcEnvHandle = "NOCGO_CUDA_TEST_IPC_HANDLE" // hex of the driver.IPCHandle
	ipcEnvN      = "NOCGO_CUDA_TEST_IPC_N"      // element count
	ipcEnvWant   = "NOCGO_CUDA_TEST_IPC_WANT"   // the exporter's data is iota from this value
	ipcEnvWrite  = "NOCGO_CUDA_TEST_IPC_WRITE"  // the child writes iota from this value
)

// TestIPCTwoProcesses exports a buffer on the real GPU and has a second
// process (this test binary, re-executed to run TestIPCChild) open it, check
// the data, overwrite it and close the mapping; the exporter then sees the
// child's data in its own, still allocated, buffer.
func TestIPCTwoProcesses(t *testing.T) {
	drv := cudatest.Real(t)
	ctx := conformance.Primary(t, drv)
	const n = 1 << 20
	b, err := memory.Alloc[float32](ctx, n)
	require.NoError(t, err)
	defer func() { require.NoError(t, b.Close()) }()
	require.NoError(t, memory.CopyToDevice(b, iota32(n, 1)))
	h, err := b.IPCHandle()
	require.NoError(t, err)

	// A process cannot open its own handle (CUDA_ERROR_INVALID_CONTEXT).
	_, err = memory.OpenIPC[float32](ctx, h, n)
	assert.ErrorIs(t, err, driver.ErrInvalidContext)

	cmd := exec.Command(os.Args[0], "-test.run=^TestIPCChild$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(),
		ipcEnvHandle+"="+hex.EncodeToString(h[:]),
		ipcEnvN+"="+strconv.Itoa(n),
		ipcEnvWant+"=1",
		ipcEnvWrite+"=1000",
		cudatest.RequireGPUEnv+"=1",
	)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "child:\n%s", out)
	require.Contains(t, string(out), "--- PASS: TestIPCChild", "child:\n%s", out)

	assert.Equal(t, iota32(n, 1000), read(t, b), "the exporter sees the child's writes")
}

// TestIPCChild is the second process of TestIPCTwoProcesses; it skips when
// run on its own.
func TestIPCChild(t *testing.T) {
	hx := os.Getenv(ipcEnvHandle)
	if hx == "" {
		t.Skip("the child process of TestIPCTwoProcesses")
	}
	raw, err := hex.DecodeString(hx)
	require.NoError(t, err)
	var h driver.IPCHandle
	require.Len(t, raw, len(h))
	copy(h[:], raw)
	n, err := strconv.Atoi(os.Getenv(ipcEnvN))
	require.NoError(t, err)
	want, err := strconv.Atoi(os.Getenv(ipcEnvWant))
	require.NoError(t, err)
	write, err := strconv.Atoi(os.Getenv(ipcEnvWrite))
	require.NoError(t, err)

	drv := cudatest.Real(t)
	ctx := conformance.Primary(t, drv)

	_, err = memory.OpenIPC[float32](ctx, h, n+1<<20)
	assert.ErrorIs(t, err, driver.ErrInvalidValue, "more than was exported")

	e, err := memory.OpenIPC[float32](ctx, h, 0)
	require.NoError(t, err, "an empty mapping")
	assert.Zero(t, e.Len())
	assert.NotZero(t, e.Ptr(), "the handle is mapped")
	require.NoError(t, memory.CopyToHost(nil, e))
	require.NoError(t, e.Close(), "closes the empty mapping")

	b, err := memory.OpenIPC[float32](ctx, h, n)
	require.NoError(t, err)
	assert.False(t, b.Owned())
	assert.Equal(t, iota32(n, float32(want)), read(t, b))
	require.NoError(t, memory.CopyToDevice(b, iota32(n, float32(write))))
	require.NoError(t, b.Close(), "closes the mapping")
	assert.Zero(t, b.Ptr())
	require.NoError(t, b.Close())
}

// TestIPCFake does the same between two fake backends, each standing for
// one process.
func TestIPCFake(t *testing.T) {
	_, ctxA, _ := setup(t)
	drvB, ctxB, _ := setup(t)
	const n = 4096
	a, err := memory.Alloc[float32](ctxA, n)
	require.NoError(t, err)
	require.NoError(t, memory.CopyToDevice(a, iota32(n, 1)))
	h, err := a.IPCHandle()
	require.NoError(t, err)

	_, err = memory.OpenIPC[float32](ctxA, h, n)
	assert.ErrorIs(t, err, driver.ErrInvalidContext, "not in the exporting process")
	_, err = memory.OpenIPC[float32](ctxB, h, n+1)
	assert.ErrorIs(t, err, driver.ErrInvalidValue, "more than was exported")
	assert.ErrorContains(t, err, "exported allocation")

	b, err := memory.OpenIPC[float32](ctxB, h, n)
	require.NoError(t, err)
	assert.False(t, b.Owned())
	mapped := b.Ptr()
	assert.Equal(t, iota32(n, 1), read(t, b))
	part, err := b.Slice(0, 10)
	require.NoError(t, err)
	require.NoError(t, memory.CopyToDevice(part, iota32(10, 100)))
	require.NoError(t, b.Close())
	assert.Zero(t, part.Ptr())
	_, err = fake.Of(drvB).Backend().PointerGetAttribute(backend.PointerAttrMemoryType, mapped)
	assert.ErrorIs(t, err, driver.ErrInvalidValue, "Free closed the mapping")

	got := read(t, a)
	assert.Equal(t, iota32(10, 100), got[:10])
	assert.Equal(t, iota32(n-10, 11), got[10:])
	require.NoError(t, a.Close(), "the exporter's memory was never freed by the opener")

	var zero driver.IPCHandle
	_, err = memory.OpenIPC[float32](ctxB, zero, 1)
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
	_, err = memory.OpenIPC[float32](ctxB, zero, 0)
	assert.ErrorIs(t, err, driver.ErrInvalidValue, "the zero handle, even for n=0")
	_, err = memory.OpenIPC[float32](ctxB, h, -1)
	assert.ErrorIs(t, err, driver.ErrInvalidValue, "n=-1")
}

// TestIPCFakeEmpty: OpenIPC of zero elements maps the handle all the same
// (a bad handle is an error) and gives an empty buffer whose Close closes
// the mapping; setup checks that nothing is left mapped.
func TestIPCFakeEmpty(t *testing.T) {
	_, ctxA, _ := setup(t)
	drvB, ctxB, _ := setup(t)
	a, err := memory.Alloc[float32](ctxA, 16)
	require.NoError(t, err)
	defer a.Close()
	h, err := a.IPCHandle()
	require.NoError(t, err)

	_, err = memory.OpenIPC[float32](ctxA, h, 0)
	assert.ErrorIs(t, err, driver.ErrInvalidContext, "the handle is checked for n=0 too")

	b, err := memory.OpenIPC[float32](ctxB, h, 0)
	require.NoError(t, err)
	assert.Zero(t, b.Len())
	assert.False(t, b.Owned())
	mapped := b.Ptr()
	assert.NotZero(t, mapped, "the handle is mapped")
	require.NoError(t, memory.CopyToDevice(b, nil))
	require.NoError(t, memory.CopyToHost(nil, b))
	v, err := b.Slice(0, 0)
	require.NoError(t, err)
	assert.Equal(t, mapped, v.Ptr())
	require.NoError(t, b.Close())
	assert.Zero(t, v.Ptr())
	_, err = fake.Of(drvB).Backend().PointerGetAttribute(backend.PointerAttrMemoryType, mapped)
	assert.ErrorIs(t, err, driver.ErrInvalidValue, "Close closed the mapping")
}
