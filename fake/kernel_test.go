package fake

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
)

type affine struct {
	Scale float32
	Shift float64
	Flag  int8
}

const scaleSrc = `
extern "C" __global__ void segment_scale(float* out, const float* in, int n) {
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) out[i] = 2.0f * in[i];
}
struct affine { float scale; double shift; char flag; };
extern "C" __global__ void apply(float* v, affine a, unsigned short n) {}
`

func kernels() []Option {
	return []Option{
		Kernel("segment_scale", func(t Thread, out, in Ptr, n int32) {
			if i := t.X(); i < int(n) {
				Store(t, out, i, 2*Load[float32](t, in, i))
			}
		}),
		Kernel("apply", func(t Thread, v Ptr, a affine, n uint16) {
			if i := t.X(); i < int(n) && a.Flag == 1 {
				Store(t, v, i, Load[float32](t, v, i)*a.Scale+float32(a.Shift))
			}
		}),
	}
}

func TestLaunchComputes(t *testing.T) {
	b := bound(t, kernels()...)
	m := load(t, b, scaleSrc)
	f, err := b.ModuleGetFunction(m, "segment_scale")
	require.NoError(t, err)
	in, err := b.MemAlloc(4 * 100)
	require.NoError(t, err)
	out, err := b.MemAlloc(4 * 100)
	require.NoError(t, err)
	vals := make([]float32, 100)
	for i := range vals {
		vals[i] = float32(i)
	}
	writeF32(t, b, in, vals)
	n := int32(100)
	require.NoError(t, b.LaunchKernel(f, [3]uint32{4, 1, 1}, [3]uint32{32, 1, 1}, 0, 0, args(ptr(&out), ptr(&in), ptr(&n))))
	n = 0 // the arguments were taken at enqueue
	got := readF32(t, b, out, 100)
	for i, v := range got {
		require.Equal(t, 2*vals[i], v, "element %d", i)
	}

	// Parameter layout with C alignment.
	for i, want := range [][2]uintptr{{0, 8}, {8, 8}, {16, 4}} {
		off, size, err := b.FuncGetParamInfo(f, i)
		require.NoError(t, err)
		assert.Equal(t, want, [2]uintptr{off, size}, "param %d", i)
	}
	_, _, err = b.FuncGetParamInfo(f, 3)
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
}

func TestLaunchDecodesStructParams(t *testing.T) {
	b := bound(t, kernels()...)
	m := load(t, b, scaleSrc)
	f, err := b.ModuleGetFunction(m, "apply")
	require.NoError(t, err)
	off, size, err := b.FuncGetParamInfo(f, 1)
	require.NoError(t, err)
	assert.Equal(t, [2]uintptr{8, 24}, [2]uintptr{off, size}, "the struct is 8-aligned, 24 bytes")
	off, size, err = b.FuncGetParamInfo(f, 2)
	require.NoError(t, err)
	assert.Equal(t, [2]uintptr{32, 2}, [2]uintptr{off, size})

	v, err := b.MemAlloc(4 * 3)
	require.NoError(t, err)
	writeF32(t, b, v, []float32{1, 2, 3})
	a := affine{Scale: 10, Shift: 0.5, Flag: 1}
	n := uint16(2)
	require.NoError(t, b.LaunchKernel(f, [3]uint32{1, 1, 1}, [3]uint32{3, 1, 1}, 0, 0, args(ptr(&v), ptr(&a), ptr(&n))))
	assert.Equal(t, []float32{10.5, 20.5, 3}, readF32(t, b, v, 3))
}

func TestLaunchFaults(t *testing.T) {
	var ran int
	b := bound(t,
		Kernel("oob", func(t Thread, p Ptr) { ran++; Store(t, p, t.X(), int32(1)) }),
	)
	m := load(t, b, `extern "C" __global__ void oob(int* p) {}`)
	oob, err := b.ModuleGetFunction(m, "oob")
	require.NoError(t, err)
	p, err := b.MemAlloc(4 * 4)
	require.NoError(t, err)

	s, err := b.StreamCreateWithPriority(0, 0)
	require.NoError(t, err)
	defer b.StreamDestroy(s)
	require.NoError(t, b.LaunchKernel(oob, [3]uint32{2, 1, 1}, [3]uint32{4, 1, 1}, 0, s, args(ptr(&p))))
	assert.ErrorIs(t, b.StreamSynchronize(s), driver.ErrIllegalAddress)
	assert.Equal(t, 5, ran, "threads after the faulting one are skipped")
	assert.ErrorIs(t, b.StreamQuery(s), driver.ErrIllegalAddress, "sticky for the stream")
	// Sticky for the process, as on the real driver: work in any context
	// fails, new contexts cannot be made, the thread's context stack and
	// device queries still answer.
	_, err = b.StreamCreateWithPriority(0, 0)
	assert.ErrorIs(t, err, driver.ErrIllegalAddress, "a new stream")
	_, err = b.CtxCreate(0, 0)
	assert.ErrorIs(t, err, driver.ErrIllegalAddress, "a new context")
	_, err = b.CtxGetCurrent()
	assert.NoError(t, err)
	_, err = b.DeviceGetName(0)
	assert.NoError(t, err)

	// A panicking kernel body is a launch failure, sticky too.
	b2 := bound(t, Kernel("boom", func(t Thread) { panic("kernel bug") }))
	m2 := load(t, b2, `extern "C" __global__ void boom() {}`)
	boom2, err := b2.ModuleGetFunction(m2, "boom")
	require.NoError(t, err)
	s2, err := b2.StreamCreateWithPriority(0, 0)
	require.NoError(t, err)
	require.NoError(t, b2.LaunchKernel(boom2, [3]uint32{1, 1, 1}, [3]uint32{1, 1, 1}, 0, s2, nil))
	assert.ErrorIs(t, b2.StreamSynchronize(s2), driver.ErrLaunchFailed)
	_, err = b2.MemAlloc(16)
	assert.ErrorIs(t, err, driver.ErrLaunchFailed, "the launch failure poisoned the process")
}

func TestLaunchChecks(t *testing.T) {
	b := bound(t, kernels()...)
	m := load(t, b, scaleSrc)
	f, err := b.ModuleGetFunction(m, "segment_scale")
	require.NoError(t, err)
	var p uintptr
	n := int32(0)
	params := args(ptr(&p), ptr(&p), ptr(&n))
	one := [3]uint32{1, 1, 1}
	for name, c := range map[string]struct {
		grid, block [3]uint32
		shared      uint32
		params      unsafe.Pointer
	}{
		"zero grid":      {[3]uint32{0, 1, 1}, one, 0, params},
		"zero block":     {one, [3]uint32{1, 0, 1}, 0, params},
		"block x > 1024": {one, [3]uint32{2048, 1, 1}, 0, params},
		"block z > 64":   {one, [3]uint32{1, 1, 65}, 0, params},
		"threads > 1024": {one, [3]uint32{32, 32, 2}, 0, params},
		"grid y > 65535": {[3]uint32{1, 65536, 1}, one, 0, params},
		"shared > 48K":   {one, one, 64 << 10, params},
		"nil params":     {one, one, 0, nil},
	} {
		assert.ErrorIs(t, b.LaunchKernel(f, c.grid, c.block, c.shared, 0, c.params), driver.ErrInvalidValue, name)
	}
	require.NoError(t, b.FuncSetAttribute(f, backend.FuncMaxDynamicSharedSize, 100000))
	assert.NoError(t, b.LaunchKernel(f, one, one, 64<<10, 0, params))
	assert.ErrorIs(t, b.FuncSetAttribute(f, backend.FuncMaxDynamicSharedSize, 300000), driver.ErrInvalidValue)
	v, err := b.FuncGetAttribute(backend.FuncMaxDynamicSharedSize, f)
	require.NoError(t, err)
	assert.Equal(t, 100000, v)
	v, err = b.FuncGetAttribute(backend.FuncMaxThreadsPerBlock, f)
	require.NoError(t, err)
	assert.Equal(t, 1024, v)
	require.NoError(t, b.CtxSynchronize())

	grid, block, err := b.OccupancyMaxPotentialBlockSize(f, 0, 0)
	require.NoError(t, err)
	assert.Equal(t, [2]int{264, 1024}, [2]int{grid, block})
	grid, block, err = b.OccupancyMaxPotentialBlockSize(f, 0, 100)
	require.NoError(t, err)
	assert.Equal(t, [2]int{4224, 64}, [2]int{grid, block})

	require.NoError(t, b.ModuleUnload(m))
	assert.ErrorIs(t, b.LaunchKernel(f, one, one, 0, 0, params), driver.ErrInvalidHandle, "unloaded")
	_, err = b.ModuleGetFunction(m, "segment_scale")
	assert.ErrorIs(t, err, driver.ErrInvalidHandle)
}

func TestModuleImages(t *testing.T) {
	b := bound(t, Kernel("k", func(Thread, Ptr, uint32) {}))
	for name, img := range map[string]string{
		"garbage":     "garbage",
		"elf garbage": "\x7fELFgarbage",
	} {
		_, err := b.ModuleLoadData([]byte(img))
		assert.ErrorIs(t, err, driver.ErrInvalidImage, name)
	}
	ptx := ".version 8.8\n.target sm_90\n.address_size 64\n.visible .entry k(\n\t.param .u64 k_param_0,\n\t.param .u32 k_param_1\n)\n{\n\tret;\n}\n\x00"
	m, err := b.ModuleLoadData([]byte(ptx))
	require.NoError(t, err, "hand-written PTX with a registered body")
	_, err = b.ModuleGetFunction(m, "missing")
	assert.ErrorIs(t, err, driver.ErrNotFound)
	require.NoError(t, b.ModuleUnload(m))
	m, err = b.ModuleLoadData([]byte(".version 8.8\n.target sm_90\n.address_size 64\n.visible .entry other()\n{\n}\n"))
	require.NoError(t, err, "no Go body for the entry: the PTX interpreter runs it")
	require.NoError(t, b.ModuleUnload(m))
	_, err = b.ModuleLoadData([]byte(".version 8.8\n.target sm_90\n.address_size 64\n.visible .entry other()\n{\n\ttex.1d.v4.f32.s32 {%f1, %f1, %f1, %f1}, [t, %r1];\n}\n"))
	assert.ErrorIs(t, err, driver.ErrInvalidPTX, "no Go body and an instruction the interpreter lacks")
	_, err = b.ModuleLoadData([]byte("\x7fELF.version 8.8\n.target sm_80\n.visible .entry k(.param .u64 a, .param .u32 b)\n{\n}\n"))
	assert.ErrorIs(t, err, driver.ErrNoBinaryForGPU, "a CUBIN for another architecture")
	_, err = b.ModuleLoadData([]byte(".version 8.8\n.target sm_100\n.visible .entry k(.param .u64 a, .param .u32 b)\n{\n}\n"))
	assert.ErrorIs(t, err, driver.ErrInvalidPTX, "PTX for a newer architecture")
	_, err = b.ModuleLoadData([]byte(".version 8.8\n.target sm_90\n.visible .entry k(.param .u64 a)\n{\n}\n"))
	assert.ErrorIs(t, err, driver.ErrInvalidImage, "parameters that do not match the body")
}
