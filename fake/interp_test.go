package fake

import (
	"encoding/binary"
	"os"
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
)

// goldenPTX is NVRTC 11.8's PTX of the interpreter's test kernels
// (internal/ptxexec/testdata/kernels.cu).
func goldenPTX(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile("internal/ptxexec/testdata/kernels_90.ptx")
	require.NoError(t, err)
	return b
}

func writeI32(t *testing.T, b *fakeBackend, p uintptr, vals []int32) {
	t.Helper()
	require.NoError(t, b.MemcpyHtoD(p, unsafe.Pointer(&vals[0]), uintptr(4*len(vals))))
}

func readI32(t *testing.T, b *fakeBackend, p uintptr, n int) []int32 {
	t.Helper()
	out := make([]int32, n)
	require.NoError(t, b.MemcpyDtoH(unsafe.Pointer(&out[0]), p, uintptr(4*n)))
	return out
}

func TestInterpretedLaunch(t *testing.T) {
	b := bound(t)
	m, err := b.ModuleLoadData(goldenPTX(t))
	require.NoError(t, err, "%v", b.loadError())
	defer b.ModuleUnload(m)
	f, err := b.ModuleGetFunction(m, "warp_sum")
	require.NoError(t, err)

	const n = 100
	in := make([]int32, n)
	var want int32
	for i := range in {
		in[i] = int32(3*i - 50)
		want += in[i]
	}
	pin, err := b.MemAlloc(4 * n)
	require.NoError(t, err)
	defer b.MemFree(pin)
	out, err := b.MemAlloc(8)
	require.NoError(t, err)
	defer b.MemFree(out)
	writeI32(t, b, pin, in)
	writeI32(t, b, out, []int32{0, 0})
	count := int32(n)
	require.NoError(t, b.LaunchKernel(f, [3]uint32{2, 1, 1}, [3]uint32{64, 1, 1}, 0, backend.StreamNull,
		args(unsafe.Pointer(&pin), unsafe.Pointer(&out), unsafe.Pointer(&count))))
	require.NoError(t, b.CtxSynchronize())
	assert.Equal(t, want, readI32(t, b, out, 1)[0])

	// Launch parameters are checked as for a Go body.
	assert.ErrorIs(t, b.LaunchKernel(f, [3]uint32{1, 1, 1}, [3]uint32{32, 1, 1}, 0, backend.StreamNull, nil), driver.ErrInvalidValue)
	require.NoError(t, b.CtxSynchronize())
}

func TestInterpretedAttributes(t *testing.T) {
	b := bound(t)
	m, err := b.ModuleLoadData(goldenPTX(t))
	require.NoError(t, err)
	defer b.ModuleUnload(m)
	for _, c := range []struct {
		name           string
		shared, params int
		local          bool
	}{
		{"axpy", 0, 5, false},
		{"block_sum", 1024, 3, false},
		{"matmul", 2 * 16 * 16 * 4, 4, false},
		{"softmax", 0, 3, false}, // extern shared: dynamic, not static
		{"local_array", 0, 3, true},
	} {
		f, err := b.ModuleGetFunction(m, c.name)
		require.NoError(t, err, c.name)
		got, err := b.FuncGetAttribute(backend.FuncSharedSizeBytes, f)
		require.NoError(t, err)
		assert.Equal(t, c.shared, got, "%s static shared", c.name)
		local, err := b.FuncGetAttribute(backend.FuncLocalSizeBytes, f)
		require.NoError(t, err)
		assert.Equal(t, c.local, local > 0, "%s local size %d", c.name, local)
		regs, err := b.FuncGetAttribute(backend.FuncNumRegs, f)
		require.NoError(t, err)
		assert.True(t, regs > 0 && regs <= 255, "%s registers %d", c.name, regs)
		threads, err := b.FuncGetAttribute(backend.FuncMaxThreadsPerBlock, f)
		require.NoError(t, err)
		assert.Equal(t, 1024, threads)
		_, _, err = b.FuncGetParamInfo(f, c.params-1)
		assert.NoError(t, err, c.name)
		_, _, err = b.FuncGetParamInfo(f, c.params)
		assert.ErrorIs(t, err, driver.ErrInvalidValue, c.name)
	}
}

func TestInterpretedFaultIsSticky(t *testing.T) {
	b := bound(t)
	m, err := b.ModuleLoadData(goldenPTX(t))
	require.NoError(t, err)
	f, err := b.ModuleGetFunction(m, "oob_write")
	require.NoError(t, err)
	p, err := b.MemAlloc(4 * 32)
	require.NoError(t, err)
	n := int32(32)
	require.NoError(t, b.LaunchKernel(f, [3]uint32{1, 1, 1}, [3]uint32{32, 1, 1}, 0, backend.StreamNull,
		args(unsafe.Pointer(&p), unsafe.Pointer(&n))))
	serr := b.CtxSynchronize()
	assert.ErrorIs(t, serr, driver.ErrIllegalAddress)
	var r backend.Result
	require.ErrorAs(t, serr, &r)
	assert.True(t, r.Sticky())
	assert.Regexp(t, `kernel fault: ptx line \d+: st\.global\.u32 .* at address 0x[0-9a-f]+ \(block \[0 0 0\], thread \[0 0 0\]\)`, serr.Error(),
		"the stream's error says where the kernel faulted")
	_, err = b.MemAlloc(16)
	assert.ErrorIs(t, err, driver.ErrIllegalAddress, "sticky: the process stays poisoned")
	fault := b.kernelFault()
	require.Error(t, fault)
	assert.ErrorIs(t, fault, driver.ErrIllegalAddress)
	assert.Contains(t, fault.Error(), "st.global.u32 [%rd4], %r5")
	assert.Regexp(t, `ptx line \d+: .* at address 0x[0-9a-f]+ \(block \[0 0 0\], thread \[0 0 0\]\)`, fault.Error())
	// Teardown still works in a poisoned process.
	b.MemFree(p)
	b.ModuleUnload(m)
}

func TestGoBodyTakesPrecedence(t *testing.T) {
	b := bound(t, Kernel("axpy", func(t Thread, a float32, x, y, out Ptr, n int32) {
		if i := t.X(); i < int(n) {
			Store(t, out, i, float32(7))
		}
	}))
	m, err := b.ModuleLoadData(goldenPTX(t))
	require.NoError(t, err)
	defer b.ModuleUnload(m)
	f, err := b.ModuleGetFunction(m, "axpy")
	require.NoError(t, err)
	out, err := b.MemAlloc(16)
	require.NoError(t, err)
	defer b.MemFree(out)
	a, n := float32(2), int32(4)
	require.NoError(t, b.LaunchKernel(f, [3]uint32{1, 1, 1}, [3]uint32{4, 1, 1}, 0, backend.StreamNull,
		args(unsafe.Pointer(&a), unsafe.Pointer(&out), unsafe.Pointer(&out), unsafe.Pointer(&out), unsafe.Pointer(&n))))
	require.NoError(t, b.CtxSynchronize())
	assert.Equal(t, []float32{7, 7, 7, 7}, readF32(t, b, out, 4))
}

func TestInterpreterRefusesAtLoad(t *testing.T) {
	b := bound(t)
	src := ".version 7.8\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n\t.reg .b32 %r<3>;\n\tset.eq.u32.f16x2 %r1, %r2, %r2;\n\tret;\n}\n"
	_, err := b.ModuleLoadData([]byte(src))
	assert.ErrorIs(t, err, driver.ErrInvalidPTX)
	le := b.loadError()
	require.Error(t, le)
	assert.ErrorIs(t, le, driver.ErrInvalidPTX)
	assert.Contains(t, le.Error(), "ptx line 7: set.eq.u32.f16x2 %r1, %r2, %r2: set on 16-bit floats is not supported")
	assert.Empty(t, b.Leaks()[1:], "nothing stays from a refused load") // [0]: the primary context
}

const globalsPTX = `.version 7.8
.target sm_90
.address_size 64

.global .align 4 .u32 counter = 41;
.const .align 4 .b8 table[8] = {1, 2, 3, 4, 5, 6, 7, 8};
.global .align 8 .u64 zeros[3];

.visible .entry bump(.param .u64 bump_param_0)
{
	.reg .b32 %r<4>;
	.reg .b64 %rd<3>;
	ld.param.u64 %rd1, [bump_param_0];
	cvta.to.global.u64 %rd2, %rd1;
	atom.global.add.u32 %r1, [counter], 1;
	ld.const.u32 %r2, [table+4];
	st.global.u32 [%rd2], %r2;
	ret;
}
`

func TestModuleGlobals(t *testing.T) {
	b := bound(t)
	m, err := b.ModuleLoadData([]byte(globalsPTX))
	require.NoError(t, err, "%v", b.loadError())
	ptr, size, err := b.ModuleGetGlobal(m, "counter")
	require.NoError(t, err)
	assert.Equal(t, uintptr(4), size)
	assert.Equal(t, []int32{41}, readI32(t, b, ptr, 1), "initialised at load")
	tp, tsize, err := b.ModuleGetGlobal(m, "table")
	require.NoError(t, err)
	assert.Equal(t, uintptr(8), tsize)
	assert.Equal(t, []byte{1, 2, 3, 4, 5, 6, 7, 8}, readDevice(t, b, tp, 8))
	zp, zsize, err := b.ModuleGetGlobal(m, "zeros")
	require.NoError(t, err)
	assert.Equal(t, uintptr(24), zsize)
	assert.Equal(t, make([]byte, 24), readDevice(t, b, zp, 24), "zero without an initialiser")

	f, err := b.ModuleGetFunction(m, "bump")
	require.NoError(t, err)
	constSize, err := b.FuncGetAttribute(backend.FuncConstSizeBytes, f)
	require.NoError(t, err)
	assert.Equal(t, 8, constSize, "the .const table")
	out, err := b.MemAlloc(4)
	require.NoError(t, err)
	require.NoError(t, b.LaunchKernel(f, [3]uint32{3, 1, 1}, [3]uint32{32, 1, 1}, 0, backend.StreamNull, args(unsafe.Pointer(&out))))
	require.NoError(t, b.CtxSynchronize())
	assert.Equal(t, []int32{41 + 96}, readI32(t, b, ptr, 1))
	assert.Equal(t, uint32(0x08070605), binary.LittleEndian.Uint32(readDevice(t, b, out, 4)))

	_, _, err = b.ModuleGetGlobal(m, "nothing")
	assert.ErrorIs(t, err, driver.ErrNotFound)
	_, _, err = b.ModuleGetGlobal(m, "bad\x00name")
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
	assert.Error(t, b.MemFree(ptr), "module memory is not cuMemFree's")

	require.NoError(t, b.ModuleUnload(m))
	_, _, err = b.ModuleGetGlobal(m, "counter")
	assert.ErrorIs(t, err, driver.ErrInvalidHandle)
	assert.Error(t, b.MemcpyDtoH(unsafe.Pointer(&size), ptr, 4), "freed with the module")
	_, _, err = b.ModuleGetGlobal(0, "counter")
	assert.ErrorIs(t, err, driver.ErrInvalidHandle)
	require.NoError(t, b.MemFree(out))
	assert.Len(t, b.Leaks(), 1, "only the primary context: %v", b.Leaks())
}

func TestInterpretedWorkers(t *testing.T) {
	b := bound(t, Workers(4))
	m, err := b.ModuleLoadData(goldenPTX(t))
	require.NoError(t, err)
	defer b.ModuleUnload(m)
	f, err := b.ModuleGetFunction(m, "block_sum")
	require.NoError(t, err)
	const n = 4096
	in := make([]float32, n)
	for i := range in {
		in[i] = float32(i % 13)
	}
	pin, err := b.MemAlloc(4 * n)
	require.NoError(t, err)
	defer b.MemFree(pin)
	total, err := b.MemAlloc(4)
	require.NoError(t, err)
	defer b.MemFree(total)
	writeF32(t, b, pin, in)
	writeF32(t, b, total, []float32{0})
	count := int32(n)
	require.NoError(t, b.LaunchKernel(f, [3]uint32{n / 256, 1, 1}, [3]uint32{256, 1, 1}, 0, backend.StreamNull,
		args(unsafe.Pointer(&pin), unsafe.Pointer(&total), unsafe.Pointer(&count))))
	var want float32
	for _, v := range in {
		want += v
	}
	assert.Equal(t, want, readF32(t, b, total, 1)[0]) // small integers: exact in any order
}

func TestInterpretedLaunchLimits(t *testing.T) {
	b := bound(t)
	src := ".version 7.8\n.target sm_90\n.address_size 64\n.visible .entry k()\n.maxntid 64, 1, 1\n{\n\tret;\n}\n"
	m, err := b.ModuleLoadData([]byte(src))
	require.NoError(t, err, "%v", b.loadError())
	defer b.ModuleUnload(m)
	f, err := b.ModuleGetFunction(m, "k")
	require.NoError(t, err)
	threads, err := b.FuncGetAttribute(backend.FuncMaxThreadsPerBlock, f)
	require.NoError(t, err)
	assert.Equal(t, 64, threads)
	assert.NoError(t, b.LaunchKernel(f, [3]uint32{1, 1, 1}, [3]uint32{64, 1, 1}, 0, backend.StreamNull, nil))
	assert.ErrorIs(t, b.LaunchKernel(f, [3]uint32{1, 1, 1}, [3]uint32{65, 1, 1}, 0, backend.StreamNull, nil), driver.ErrInvalidValue)
	assert.NoError(t, b.CtxSynchronize())
}

func TestInterpretedPrintfAndAssert(t *testing.T) {
	var out strings.Builder
	b := bound(t, KernelOutput(&out))
	m, err := b.ModuleLoadData(goldenPTX(t))
	require.NoError(t, err)
	hello, err := b.ModuleGetFunction(m, "hello")
	require.NoError(t, err)
	p, err := b.MemAlloc(8)
	require.NoError(t, err)
	writeF32(t, b, p, []float32{0.5, 7})
	n := int32(2)
	require.NoError(t, b.LaunchKernel(hello, [3]uint32{1, 1, 1}, [3]uint32{32, 1, 1}, 0, backend.StreamNull, args(unsafe.Pointer(&p), unsafe.Pointer(&n))))
	require.NoError(t, b.CtxSynchronize())
	assert.Equal(t, "thread 0: 0.50 ok z 0 0%\nthread 1: 7.00 ok z 1000000000 1%\n", out.String())

	checked, err := b.ModuleGetFunction(m, "checked")
	require.NoError(t, err)
	writeI32(t, b, p, []int32{0, -3})
	require.NoError(t, b.LaunchKernel(checked, [3]uint32{1, 1, 1}, [3]uint32{2, 1, 1}, 0, backend.StreamNull, args(unsafe.Pointer(&p))))
	err = b.CtxSynchronize()
	assert.ErrorIs(t, err, driver.Result(710), "CUDA_ERROR_ASSERT, sticky")
	assert.Contains(t, out.String(), "thread: [1,0,0] Assertion `v[threadIdx.x] >= 0` failed.")
	assert.ErrorIs(t, b.kernelFault(), driver.Result(710))
	b.MemFree(p)
	b.ModuleUnload(m)
}
