package conformance

import (
	"errors"
	"os"
	"testing"

	"github.com/nocgo/cuda/conformance/kernels"
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/module"
	"github.com/nocgo/cuda/stream"
)

// VMMProbeEnv, set to 1, runs the virtual memory probes that may leave a
// sticky fault on a GPU (a copy into a mapping nobody was given access
// to) beside the others; on the fake they always run. On the GPU run them
// alone:
//
//	NOCGO_CUDA_VMM_PROBE=1 NOCGO_CUDA_REQUIRE_GPU=1 go test -run 'TestReal/vmm/no-access' ./conformance
const VMMProbeEnv = "NOCGO_CUDA_VMM_PROBE"

// testVMM checks virtual memory management (package memory's
// AddressRange, PhysicalMemory, Mapping, Growable and shareable handles),
// on backends that have it. What only a GPU can tell is logged (t.Log)
// for the fake to be held to it.
func testVMM(t *testing.T, drv *driver.Driver) {
	if _, ok := raw(t, drv).(backend.VirtualMemory); !ok {
		t.Skip("the backend has no virtual memory management")
	}
	if !vmmWorks(t, drv) {
		t.Skip("the backend's virtual memory management is not supported here (CUDA_ERROR_NOT_SUPPORTED)")
	}
	t.Run("granularity", func(t *testing.T) { testVMMGranularity(t, drv) })
	t.Run("map", func(t *testing.T) { testVMMMap(t, drv) })
	t.Run("alias", func(t *testing.T) { testVMMAlias(t, drv) })
	t.Run("partial", func(t *testing.T) { testVMMPartial(t, drv) })
	t.Run("errors", func(t *testing.T) { testVMMErrors(t, drv) })
	t.Run("growable", func(t *testing.T) { testVMMGrowable(t, drv) })
	t.Run("shareable", func(t *testing.T) { testVMMShareable(t, drv) })
	t.Run("no-access", func(t *testing.T) { testVMMNoAccess(t, drv) })
	t.Run("probes", func(t *testing.T) { testVMMProbes(t, drv) }) // vmm_probes.go
}

// vmmWorks reports whether the backend answers for device 0's granularity
// rather than refusing with CUDA_ERROR_NOT_SUPPORTED (a device or driver
// without VMM; the fake off Linux).
func vmmWorks(t *testing.T, drv *driver.Driver) bool {
	dev, err := drv.Device(0)
	must(t, err)
	ctx, err := dev.PrimaryContext()
	must(t, err)
	defer ctx.Close()
	_, err = memory.Granularity(ctx)
	return !errors.Is(err, driver.ErrNotSupported)
}

// vmmSetup is memSetup with the device's granularity, and a check that the
// case left no virtual memory object behind.
func vmmSetup(t *testing.T, drv *driver.Driver) (*driver.Context, *stream.Stream, int) {
	t.Helper()
	ctx, s := memSetup(t, drv)
	g, err := memory.Granularity(ctx)
	must(t, err)
	t.Cleanup(func() { vmmNoLeaks(t, drv) })
	return ctx, s, g
}

// vmmNoLeaks checks, on the fake, that the case released every range,
// mapping and physical allocation it made.
func vmmNoLeaks(t *testing.T, drv *driver.Driver) {
	t.Helper()
	all, ok := leaks(drv)
	if !ok {
		return
	}
	var left []backend.Leak
	for _, l := range all {
		switch l.Kind {
		case backend.LeakAddressRange, backend.LeakMapping, backend.LeakPhysicalMemory:
			left = append(left, l)
		}
	}
	isEmpty(t, left, "virtual memory left at the end of the case")
}

func vmmIota(n int, start uint32) []uint32 {
	v := make([]uint32, n)
	for i := range v {
		v[i] = start + uint32(i)
	}
	return v
}

func testVMMGranularity(t *testing.T, drv *driver.Driver) {
	ctx, _ := memSetup(t, drv)
	g, err := memory.Granularity(ctx)
	must(t, err)
	rec, err := memory.RecommendedGranularity(ctx)
	must(t, err)
	t.Logf("device 0: granularity %d bytes (minimum), %d (recommended)", g, rec)
	compare(t, g, ">", 0)
	equal(t, g&(g-1), 0, "a power of two")
	equal(t, rec%g, 0, "the recommended granularity is a multiple of the minimum")
}

func testVMMMap(t *testing.T, drv *driver.Driver) {
	ctx, s, g := vmmSetup(t, drv)
	r, err := memory.ReserveAddress(ctx, 4*g)
	must(t, err)
	notZero(t, r.Ptr())
	equal(t, r.Size(), 4*g)
	equal(t, r.Ptr()%uintptr(g), 0, "the range is aligned to the granularity")
	p, err := memory.NewPhysical(ctx, 2*g, memory.PhysicalOptions{})
	must(t, err)
	notZero(t, p.Handle())
	m, err := r.Map(g, p, 0, 2*g)
	must(t, err)
	equal(t, m.Ptr(), r.Ptr()+uintptr(g))

	a, err := m.Access(ctx.Device())
	if err != nil {
		t.Logf("cuMemGetAccess before cuMemSetAccess: %v", err)
	} else {
		t.Logf("cuMemGetAccess before cuMemSetAccess: %s", a)
	}
	must(t, m.SetAccess(ctx.Device(), memory.AccessReadWrite))
	a, err = m.Access(ctx.Device())
	must(t, err)
	equal(t, a, memory.AccessReadWrite)

	b, err := memory.MappedBuffer[uint32](m)
	must(t, err)
	equal(t, b.Len(), 2*g/4)
	equal(t, b.Ptr(), m.Ptr())
	isFalse(t, b.Owned(), "a mapping's buffer never frees the memory")
	attr, err := raw(t, drv).PointerGetAttribute(backend.PointerAttrMemoryType, b.Ptr())
	must(t, err)
	equal(t, backend.MemoryType(attr), backend.MemoryTypeDevice)
	want := vmmIota(b.Len(), 7)
	must(t, memory.CopyToDevice(b, want))

	// The handle can go while the memory is mapped: the mapping keeps it.
	must(t, p.Close())
	isZero(t, p.Handle())
	got := make([]uint32, b.Len())
	must(t, memory.CopyToHost(got, b))
	equal(t, got[0], want[0])
	equal(t, got[len(got)-1], want[len(want)-1])

	// A kernel writes through the mapping.
	f, err := Kernels(t, ctx).Function(kernels.Add1)
	must(t, err)
	fb, err := memory.MappedBuffer[float32](m)
	must(t, err)
	must(t, memory.CopyToDevice(fb, memIota(fb.Len(), 0)))
	must(t, f.Launch(s, module.Config{Grid: module.Dim((fb.Len() + 255) / 256), Block: module.Dim(256)}, fb, int32(fb.Len())))
	must(t, s.Synchronize())
	out := make([]float32, fb.Len())
	must(t, memory.CopyToHost(out, fb))
	memSame(t, memIota(fb.Len(), 1), out)

	errorIs(t, r.Close(), memory.ErrMapped, "the range has a mapping")
	notZero(t, r.Ptr(), "a refused Close changes nothing")
	must(t, m.Close())
	must(t, m.Close(), "a second Close is a no-op")
	errorIs(t, memory.CopyToHost(got, b), driver.ErrClosed, "the mapping's buffers end with it")
	isZero(t, b.Ptr())
	must(t, r.Close())
	must(t, r.Close(), "a second Close is a no-op")
	isZero(t, r.Ptr())
}

func testVMMAlias(t *testing.T, drv *driver.Driver) {
	ctx, s, g := vmmSetup(t, drv)
	r, err := memory.ReserveAddress(ctx, 2*g)
	must(t, err)
	defer func() { must(t, r.Close()) }()
	r2, err := memory.ReserveAddress(ctx, g)
	must(t, err)
	defer func() { must(t, r2.Close()) }()
	p, err := memory.NewPhysical(ctx, g, memory.PhysicalOptions{})
	must(t, err)
	defer func() { must(t, p.Close()) }()
	var bufs []*memory.Buffer[uint32]
	for _, at := range []struct {
		r   *memory.AddressRange
		off int
	}{{r, 0}, {r, g}, {r2, 0}} {
		m, err := at.r.Map(at.off, p, 0, g)
		must(t, err)
		defer func() { must(t, m.Close()) }()
		must(t, m.SetAccess(ctx.Device(), memory.AccessReadWrite))
		b, err := memory.MappedBuffer[uint32](m)
		must(t, err)
		bufs = append(bufs, b)
	}
	n := g / 4
	want := vmmIota(n, 100)
	must(t, memory.CopyToDevice(bufs[0], want))
	for i, b := range bufs[1:] {
		got := make([]uint32, n)
		must(t, memory.CopyToHost(got, b))
		equal(t, got[n/2], want[n/2], "mapping %d shows what was written through mapping 0", i+1)
		equal(t, got[n-1], want[n-1])
	}
	// A write through the second range is read through the first.
	must(t, memory.Fill(s, bufs[2], 0xabcdef))
	must(t, s.Synchronize())
	got := make([]uint32, n)
	must(t, memory.CopyToHost(got, bufs[1]))
	equal(t, got[0], uint32(0xabcdef))
	equal(t, got[n-1], uint32(0xabcdef))
}

// testVMMPartial maps part of an allocation (the second granule only):
// cuMemMap's documentation allows any offset and size that are multiples
// of the granularity inside the allocation.
func testVMMPartial(t *testing.T, drv *driver.Driver) {
	ctx, s, g := vmmSetup(t, drv)
	p, err := memory.NewPhysical(ctx, 2*g, memory.PhysicalOptions{})
	must(t, err)
	defer func() { must(t, p.Close()) }()
	r, err := memory.ReserveAddress(ctx, 2*g)
	must(t, err)
	defer func() { must(t, r.Close()) }()
	// From an offset into the allocation: refused (the driver API's docs
	// say the offset must be 0; driver 580 answers NOT_SUPPORTED).
	_, err = r.Map(0, p, g, g)
	errorIs(t, err, driver.ErrNotSupported, "a mapping from the middle of an allocation")
	// Nor the first half of it: a mapping is of a whole allocation
	// (driver 580, H200 runs S2 and S3).
	_, err = r.Map(g, p, 0, g)
	errorIs(t, err, driver.ErrNotSupported, "a mapping of part of an allocation")
	// The whole of it maps, and shows what a fill wrote.
	whole, err := r.Map(0, p, 0, 2*g)
	must(t, err)
	defer func() { must(t, whole.Close()) }()
	must(t, whole.SetAccess(ctx.Device(), memory.AccessReadWrite))
	wb, err := memory.MappedBuffer[uint32](whole)
	must(t, err)
	must(t, memory.Fill(s, wb, 42))
	must(t, s.Synchronize())
	got := make([]uint32, wb.Len())
	must(t, memory.CopyToHost(got, wb))
	equal(t, got[0], uint32(42))
	equal(t, got[len(got)-1], uint32(42))
}

// vmmMappedOf maps all of p (size bytes) in a new range with read-write
// access; closed when the test ends.
func vmmMappedOf(t *testing.T, ctx *driver.Context, p *memory.PhysicalMemory, size int) *memory.Mapping {
	t.Helper()
	r, err := memory.ReserveAddress(ctx, size)
	must(t, err)
	t.Cleanup(func() { must(t, r.Close()) })
	m, err := r.Map(0, p, 0, size)
	must(t, err)
	t.Cleanup(func() { must(t, m.Close()) })
	must(t, m.SetAccess(ctx.Device(), memory.AccessReadWrite))
	return m
}

func testVMMErrors(t *testing.T, drv *driver.Driver) {
	ctx, _, g := vmmSetup(t, drv)
	_, err := memory.ReserveAddress(ctx, g+1)
	errorIs(t, err, driver.ErrInvalidValue, "a size not a multiple of the granularity")
	_, err = memory.ReserveAddress(ctx, 0)
	errorIs(t, err, driver.ErrInvalidValue)
	_, err = memory.ReserveAddress(nil, g)
	errorIs(t, err, driver.ErrInvalidValue)
	_, err = memory.NewPhysical(ctx, g/2, memory.PhysicalOptions{})
	errorIs(t, err, driver.ErrInvalidValue)
	_, err = memory.NewPhysical(ctx, -g, memory.PhysicalOptions{})
	errorIs(t, err, driver.ErrInvalidValue)

	r, err := memory.ReserveAddress(ctx, 2*g)
	must(t, err)
	defer func() { must(t, r.Close()) }()
	p, err := memory.NewPhysical(ctx, g, memory.PhysicalOptions{})
	must(t, err)
	defer func() { must(t, p.Close()) }()
	for _, c := range []struct {
		name               string
		off, physOff, size int
	}{
		{"unaligned offset", g / 2, 0, g},
		{"unaligned size", 0, 0, g / 2},
		{"zero size", 0, 0, 0},
		{"negative offset", -g, 0, g},
		{"outside the range", 2 * g, 0, g},
		{"past the range's end", g, 0, 2 * g},
		{"past the memory's end", 0, g, g},
		{"bigger than the memory", 0, 0, 2 * g},
	} {
		_, err := r.Map(c.off, p, c.physOff, c.size)
		errorIs(t, err, driver.ErrInvalidValue, c.name)
	}
	_, err = r.Map(0, nil, 0, g)
	errorIs(t, err, driver.ErrInvalidValue, "nil memory")
	var nilRange *memory.AddressRange
	_, err = nilRange.Map(0, p, 0, g)
	errorIs(t, err, driver.ErrInvalidValue, "nil range")

	m, err := r.Map(0, p, 0, g)
	must(t, err)
	_, err = r.Map(0, p, 0, g)
	errorIs(t, err, driver.ErrInvalidValue, "a second mapping at the same address")
	errorIs(t, m.SetAccess(ctx.Device(), memory.Access(2)), driver.ErrInvalidValue, "an access that is no CUmemAccess_flags")
	errorIs(t, m.SetAccess(nil, memory.AccessReadWrite), driver.ErrInvalidValue)
	_, err = m.Access(nil)
	errorIs(t, err, driver.ErrInvalidValue)
	_, err = memory.MappedBuffer[string](m)
	errorIs(t, err, driver.ErrInvalidValue, "an element type that cannot live in device memory")
	must(t, m.Close())
	errorIs(t, m.SetAccess(ctx.Device(), memory.AccessReadWrite), driver.ErrClosed)
	_, err = memory.MappedBuffer[uint32](m)
	errorIs(t, err, driver.ErrClosed)
	must(t, p.Close())
	_, err = r.Map(0, p, 0, g)
	errorIs(t, err, driver.ErrClosed, "closed memory")
}

func testVMMGrowable(t *testing.T, drv *driver.Driver) {
	ctx, s, g := vmmSetup(t, drv)
	const maxLen = 64 << 20 // 256 MiB of float32: address space only
	gb, err := memory.NewGrowable[float32](ctx, maxLen, memory.GrowableOptions{})
	must(t, err)
	defer func() { must(t, gb.Close()) }()
	base := gb.Ptr()
	notZero(t, base)
	equal(t, gb.Len(), 0)
	equal(t, gb.Cap(), 0, "nothing mapped yet")
	equal(t, gb.MaxLen(), maxLen)

	first := g / 4 / 2 // half a granule of float32
	must(t, gb.Grow(first))
	equal(t, gb.Cap(), g/4, "one granule mapped")
	b, err := gb.Buffer()
	must(t, err)
	must(t, memory.CopyToDevice(b, memIota(first, 0)))

	// Grow across two more granules: the pointer stays, the data too.
	n := 2*g/4 + 1000
	must(t, gb.Grow(n))
	equal(t, gb.Ptr(), base, "the pointer never moves")
	equal(t, gb.Len(), n)
	equal(t, gb.Cap(), 3*g/4)
	must(t, gb.Grow(10), "a smaller length leaves it as it is")
	equal(t, gb.Len(), n)
	b2, err := gb.Buffer()
	must(t, err)
	equal(t, b2.Ptr(), base)
	equal(t, b2.Len(), n)
	rest, err := b2.Slice(first, n)
	must(t, err)
	must(t, memory.CopyToDevice(rest, memIota(n-first, float32(first))))

	// A copy and a kernel across the granules' boundaries.
	f, err := Kernels(t, ctx).Function(kernels.Add1)
	must(t, err)
	must(t, f.Launch(s, module.Config{Grid: module.Dim((n + 255) / 256), Block: module.Dim(256)}, b2, int32(n)))
	must(t, s.Synchronize())
	memSame(t, memIota(n, 1), memRead(t, b2))
	memSame(t, memIota(first, 1), memRead(t, b), "the old view still works, at its old length")

	errorIs(t, gb.Grow(maxLen+1), driver.ErrInvalidValue)
	errorIs(t, gb.Grow(-1), driver.ErrInvalidValue)
	must(t, gb.Close())
	must(t, gb.Close(), "a second Close is a no-op")
	errorIs(t, memory.CopyToHost(make([]float32, n), b2), driver.ErrClosed, "views end with the buffer")
	errorIs(t, gb.Grow(1), driver.ErrClosed)
	isZero(t, gb.Ptr())

	_, err = memory.NewGrowable[float32](ctx, 0, memory.GrowableOptions{})
	errorIs(t, err, driver.ErrInvalidValue)
	_, err = memory.NewGrowable[float32](ctx, 10, memory.GrowableOptions{Chunk: g + 1})
	errorIs(t, err, driver.ErrInvalidValue)
}

func testVMMShareable(t *testing.T, drv *driver.Driver) {
	ctx, _, g := vmmSetup(t, drv)
	plain, err := memory.NewPhysical(ctx, g, memory.PhysicalOptions{})
	must(t, err)
	_, err = plain.Export()
	errorIs(t, err, driver.ErrInvalidValue, "memory not made shareable")
	must(t, plain.Close())

	p, err := memory.NewPhysical(ctx, 2*g, memory.PhysicalOptions{Shareable: true})
	must(t, err)
	defer func() { must(t, p.Close()) }()
	isTrue(t, p.Shareable())
	f, err := p.Export()
	must(t, err)
	t.Logf("exported %s as file descriptor %d (%s)", p, f.Fd(), f.Name())
	imp, err := memory.ImportPhysical(ctx, f, 2*g)
	must(t, f.Close(), "the descriptor can go once imported")
	must(t, err)
	defer func() { must(t, imp.Close()) }()
	t.Logf("imported in the same process: handle %#x (the exporter's is %#x)", imp.Handle(), p.Handle())
	isTrue(t, imp.Handle() != p.Handle(), "an import's handle is its own, also in the exporting process (driver 580)")

	m := vmmMappedOf(t, ctx, p, 2*g)
	mi := vmmMappedOf(t, ctx, imp, 2*g)
	b, err := memory.MappedBuffer[uint32](m)
	must(t, err)
	bi, err := memory.MappedBuffer[uint32](mi)
	must(t, err)
	want := vmmIota(b.Len(), 5)
	must(t, memory.CopyToDevice(b, want))
	got := make([]uint32, bi.Len())
	must(t, memory.CopyToHost(got, bi))
	equal(t, got[0], want[0], "the imported memory is the exported memory")
	equal(t, got[len(got)-1], want[len(want)-1])

	// Retaining the handle of a mapped address (raw): the driver's own view.
	if vm, ok := raw(t, drv).(backend.VirtualMemory); ok {
		h, err := vm.MemRetainAllocationHandle(m.Ptr())
		must(t, err)
		t.Logf("cuMemRetainAllocationHandle(%#x) = %#x (NewPhysical's handle %#x)", m.Ptr(), h, p.Handle())
		equal(t, h, p.Handle(), "the retained handle is the one the mapping was made with")
		prop, err := vm.MemGetAllocationPropertiesFromHandle(h)
		must(t, err)
		equal(t, prop.Location, backend.MemLocation{Type: backend.MemLocationDevice, ID: int32(ctx.Device().Ordinal())})
		equal(t, prop.RequestedHandleTypes, backend.MemHandlePOSIXFileDescriptor)
		must(t, vm.MemRelease(h))
	}

	junk, err := os.CreateTemp(t.TempDir(), "not-cuda")
	must(t, err)
	defer junk.Close()
	_, err = memory.ImportPhysical(ctx, junk, g)
	errorIs(t, err, driver.ErrUnknown, "a file that is no exported CUDA memory: driver 580 answers CUDA_ERROR_UNKNOWN")
	_, err = memory.ImportPhysical(ctx, nil, g)
	errorIs(t, err, driver.ErrInvalidValue)
}

// testVMMNoAccess: a mapping nobody was given access to cannot be used;
// a copy into it fails. On a GPU that may be a fault that poisons the
// process, so there it runs only with VMMProbeEnv set.
func testVMMNoAccess(t *testing.T, drv *driver.Driver) {
	if _, fake := leaks(drv); !fake && os.Getenv(VMMProbeEnv) != "1" {
		t.Skipf("may leave a sticky fault on a GPU: run alone with %s=1", VMMProbeEnv)
	}
	ctx, _, g := vmmSetup(t, drv)
	r, err := memory.ReserveAddress(ctx, g)
	must(t, err)
	defer func() { must(t, r.Close()) }()
	p, err := memory.NewPhysical(ctx, g, memory.PhysicalOptions{})
	must(t, err)
	defer func() { must(t, p.Close()) }()
	m, err := r.Map(0, p, 0, g)
	must(t, err)
	defer func() { must(t, m.Close()) }()
	b, err := memory.MappedBuffer[uint32](m)
	must(t, err)
	err = memory.CopyToDevice(b, vmmIota(b.Len(), 0))
	t.Logf("a copy into a mapping with no access: %v", err)
	hasError(t, err, "a copy into a mapping nobody may access")
	must(t, m.SetAccess(ctx.Device(), memory.AccessReadWrite))
	must(t, memory.CopyToDevice(b, vmmIota(b.Len(), 0)), "once access is granted")
}
