package conformance

import (
	"testing"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
)

// testVMMProbes makes raw virtual memory calls whose result NVIDIA's
// documentation does not state, and logs what the backend answers, so
// that the fake can be held to what the GPU does (compare the fake's run
// with the GPU's). Only what the documentation states is checked. Nothing
// here can fault: every probe is on a valid mapping or none.
func testVMMProbes(t *testing.T, drv *driver.Driver) {
	ctx, _, gi := vmmSetup(t, drv)
	vm := raw(t, drv).(backend.VirtualMemory)
	b, err := bindCtx(ctx)
	must(t, err)
	defer b.Unbind()
	g := uintptr(gi)
	prop := backend.MemAllocationProp{Type: backend.MemAllocationTypePinned,
		Location: backend.MemLocation{Type: backend.MemLocationDevice, ID: int32(ctx.Device().Ordinal())}}
	loc := prop.Location
	probe := func(what string, err error) { t.Logf("probe: %s: %v", what, err) }

	_, err = vm.MemCreate(g/2, prop, 0)
	probe("cuMemCreate of half a granule", err)
	hasError(t, err, "the documentation: size a multiple of the granularity")
	_, err = vm.MemAddressReserve(g+1, 0, 0, 0)
	probe("cuMemAddressReserve of a granule and a byte", err)

	ptr, err := vm.MemAddressReserve(4*g, 0, 0, 0)
	must(t, err)
	h, err := vm.MemCreate(2*g, prop, 0)
	if !noError(t, err) {
		vm.MemAddressFree(ptr, 4*g)
		return
	}
	must(t, vm.MemMap(ptr, 2*g, 0, h, 0))
	defer func() {
		noError(t, vm.MemUnmap(ptr, 2*g), "cuMemUnmap of the whole mapping")
		noError(t, vm.MemRelease(h))
		noError(t, vm.MemAddressFree(ptr, 4*g))
	}()

	f, err := vm.MemGetAccess(loc, ptr)
	t.Logf("probe: cuMemGetAccess before cuMemSetAccess: flags %d, %v", f, err)
	probe("cuMemSetAccess of half a mapping", vm.MemSetAccess(ptr, g, []backend.MemAccessDesc{{Location: loc, Flags: backend.MemAccessReadWrite}}))
	f, err = vm.MemGetAccess(loc, ptr+g)
	t.Logf("probe: cuMemGetAccess of the other half then: flags %d, %v", f, err)
	must(t, vm.MemSetAccess(ptr, 2*g, []backend.MemAccessDesc{{Location: loc, Flags: backend.MemAccessReadWrite}}))

	probe("cuMemMap over a mapping", vm.MemMap(ptr, 2*g, 0, h, 0))
	probe("cuMemMap of an unknown handle", vm.MemMap(ptr+2*g, g, 0, h+0x1000, 0))
	probe("cuMemAddressFree of a range with a mapping", errOrUndo(vm.MemAddressFree(ptr, 4*g), func() {
		t.Errorf("cuMemAddressFree freed a range with a mapping: the rest of this case will fail")
	}))
	probe("cuMemRelease of an unknown handle", vm.MemRelease(h+0x1000))
	_, err = vm.MemExportToShareableHandle(h, backend.MemHandlePOSIXFileDescriptor, 0)
	probe("cuMemExportToShareableHandle of memory not made shareable", err)
	_, err = vm.MemRetainAllocationHandle(ptr + 3*g)
	probe("cuMemRetainAllocationHandle of a reserved, unmapped address", err)
	_, err = vm.MemGetAccess(loc, ptr+3*g)
	probe("cuMemGetAccess of a reserved, unmapped address", err)
	r, err := vm.MemRetainAllocationHandle(ptr + g + 4096)
	t.Logf("probe: cuMemRetainAllocationHandle inside the mapping: %#x (cuMemCreate gave %#x), %v", r, h, err)
	if err == nil {
		must(t, vm.MemRelease(r))
	}
	base, size, err := raw(t, drv).MemGetAddressRange(ptr + g)
	t.Logf("probe: cuMemGetAddressRange inside the mapping: [%#x, +%d) (mapping [%#x, +%d)), %v", base, size, ptr, 2*g, err)
	for _, a := range []struct {
		attr backend.PointerAttribute
		name string
	}{{backend.PointerAttrContext, "CONTEXT"}, {backend.PointerAttrMemoryType, "MEMORY_TYPE"}, {10, "IS_LEGACY_CUDA_IPC_CAPABLE"},
		{14, "ALLOWED_HANDLE_TYPES"}, {16, "ACCESS_FLAGS"}, {backend.PointerAttrRangeSize, "RANGE_SIZE"}} {
		v, err := raw(t, drv).PointerGetAttribute(a.attr, ptr)
		t.Logf("probe: cuPointerGetAttribute(%s) of a mapping with read-write access: %#x, %v", a.name, v, err)
	}
	probe("cuMemUnmap of half a mapping", errOrUndo(vm.MemUnmap(ptr, g), func() {
		t.Errorf("cuMemUnmap unmapped half a mapping: the rest of this case will fail")
	}))
}

// errOrUndo returns err, and calls undo when err is nil (a probe the
// fake refuses that the backend accepted).
func errOrUndo(err error, undo func()) error {
	if err == nil {
		undo()
	}
	return err
}
