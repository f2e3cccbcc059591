//go:build linux && (amd64 || arm64)

package memory_test

import (
	"bytes"
	"net"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/conformance"
	"github.com/nocgo/cuda/cudatest"
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/memory"
)

// The environment of the child process of the shareable-handle tests
// (TestVirtualChild).
const (
	vmmEnvChild = "NOCGO_CUDA_TEST_VMM_CHILD" // "fake" or "gpu"
	vmmEnvSize  = "NOCGO_CUDA_TEST_VMM_SIZE"  // bytes exported
)

// TestVirtualTwoProcessesFake exports memory of the fake as a file
// descriptor, sends it over a Unix socket (SCM_RIGHTS, as
// PhysicalMemory.Export documents) to a second process (this test binary
// again, with its own fake), which maps it, checks the data and
// overwrites it; the exporter sees the child's writes.
func TestVirtualTwoProcessesFake(t *testing.T) {
	testVirtualTwoProcesses(t, "fake", vmCtx(t))
}

// TestVirtualTwoProcessesGPU is TestVirtualTwoProcessesFake on the real
// GPU (skipped without one; NOCGO_CUDA_REQUIRE_GPU=1 makes that a failure).
func TestVirtualTwoProcessesGPU(t *testing.T) {
	drv := cudatest.Real(t)
	testVirtualTwoProcesses(t, "gpu", conformance.Primary(t, drv))
}

func testVirtualTwoProcesses(t *testing.T, which string, ctx *driver.Context) {
	gran, err := memory.Granularity(ctx)
	require.NoError(t, err)
	size := 2 * gran
	p, err := memory.NewPhysical(ctx, size, memory.PhysicalOptions{Shareable: true})
	require.NoError(t, err)
	defer func() { require.NoError(t, p.Close()) }()
	r, err := memory.ReserveAddress(ctx, size)
	require.NoError(t, err)
	defer func() { require.NoError(t, r.Close()) }()
	m, err := r.Map(0, p, 0, size)
	require.NoError(t, err)
	defer func() { require.NoError(t, m.Close()) }()
	require.NoError(t, m.SetAccess(ctx.Device(), memory.AccessReadWrite))
	b, err := memory.MappedBuffer[uint32](m)
	require.NoError(t, err)
	require.NoError(t, memory.CopyToDevice(b, iotaU32(b.Len(), 1)))

	f, err := p.Export()
	require.NoError(t, err)
	t.Logf("exported %s as descriptor %d", p, f.Fd())
	pair, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	require.NoError(t, err)
	mine := os.NewFile(uintptr(pair[0]), "parent end")
	theirs := os.NewFile(uintptr(pair[1]), "child end")
	defer mine.Close()
	conn, err := net.FileConn(mine)
	require.NoError(t, err)
	defer conn.Close()

	args := []string{os.Args[0], "-test.run=^TestVirtualChild$", "-test.v", "-test.count=1"}
	if emu := os.Getenv("NOCGO_CUDA_TEST_EXEC"); emu != "" {
		args = append([]string{emu}, args...) // the tests run under an emulator (.ci/dl-arm64.sh): the child too
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = append(os.Environ(), vmmEnvChild+"="+which, vmmEnvSize+"="+strconv.Itoa(size))
	if which == "gpu" {
		cmd.Env = append(cmd.Env, cudatest.RequireGPUEnv+"=1")
	}
	cmd.ExtraFiles = []*os.File{theirs} // descriptor 3 in the child
	var out outBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	require.NoError(t, cmd.Start())
	require.NoError(t, theirs.Close(), "the child has its own copy")
	_, _, err = conn.(*net.UnixConn).WriteMsgUnix([]byte{0}, syscall.UnixRights(int(f.Fd())), nil)
	require.NoError(t, err)
	require.NoError(t, f.Close(), "the sender's descriptor can go once sent")
	err = cmd.Wait()
	require.NoError(t, err, "child:\n%s", out.String())
	require.Contains(t, out.String(), "--- PASS: TestVirtualChild", "child:\n%s", out.String())
	got := make([]uint32, b.Len())
	require.NoError(t, memory.CopyToHost(got, b))
	assert.Equal(t, iotaU32(b.Len(), 1000), got, "the exporter sees the child's writes")
}

// outBuffer collects a child's output.
type outBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *outBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *outBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func iotaU32(n int, start uint32) []uint32 {
	v := make([]uint32, n)
	for i := range v {
		v[i] = start + uint32(i)
	}
	return v
}

// TestVirtualChild is the second process of the TestVirtualTwoProcesses
// tests; it skips when run on its own.
func TestVirtualChild(t *testing.T) {
	which := os.Getenv(vmmEnvChild)
	if which == "" {
		t.Skip("the child process of TestVirtualTwoProcesses*")
	}
	size, err := strconv.Atoi(os.Getenv(vmmEnvSize))
	require.NoError(t, err)
	var ctx *driver.Context
	if which == "gpu" {
		ctx = conformance.Primary(t, cudatest.Real(t))
	} else {
		ctx = vmCtx(t)
	}

	sock := os.NewFile(3, "socket")
	conn, err := net.FileConn(sock)
	require.NoError(t, err)
	sock.Close()
	defer conn.Close()
	oob := make([]byte, syscall.CmsgSpace(4))
	_, oobn, _, _, err := conn.(*net.UnixConn).ReadMsgUnix(make([]byte, 1), oob)
	require.NoError(t, err)
	msgs, err := syscall.ParseSocketControlMessage(oob[:oobn])
	require.NoError(t, err)
	require.Len(t, msgs, 1)
	fds, err := syscall.ParseUnixRights(&msgs[0])
	require.NoError(t, err)
	require.Len(t, fds, 1)
	f := os.NewFile(uintptr(fds[0]), "cuda-memory")
	t.Logf("received descriptor %d", fds[0])

	p, err := memory.ImportPhysical(ctx, f, size)
	require.NoError(t, f.Close())
	require.NoError(t, err)
	r, err := memory.ReserveAddress(ctx, size)
	require.NoError(t, err)
	m, err := r.Map(0, p, 0, size)
	require.NoError(t, err)
	require.NoError(t, m.SetAccess(ctx.Device(), memory.AccessReadWrite))
	b, err := memory.MappedBuffer[uint32](m)
	require.NoError(t, err)
	got := make([]uint32, b.Len())
	require.NoError(t, memory.CopyToHost(got, b))
	assert.Equal(t, iotaU32(b.Len(), 1), got, "the child sees the exporter's data")
	require.NoError(t, memory.CopyToDevice(b, iotaU32(b.Len(), 1000)))
	require.NoError(t, m.Close())
	require.NoError(t, p.Close())
	require.NoError(t, r.Close())
}
