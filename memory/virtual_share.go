package memory

import (
	"fmt"
	"os"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
)

// Export returns the memory as a POSIX file descriptor that another
// process (or this one) passes to ImportPhysical
// (cuMemExportToShareableHandle, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR).
// The caller owns the *os.File and closes it once it is sent (or
// imported): the memory does not depend on it. Only memory made with
// PhysicalOptions.Shareable (or imported) can be exported; other memory is
// an error wrapping driver.ErrInvalidValue, before any driver call.
//
// A descriptor reaches another process over a Unix domain socket, as
// ancillary data (SCM_RIGHTS); with the standard library:
//
//	// sender
//	rights := syscall.UnixRights(int(f.Fd()))
//	_, _, err := conn.WriteMsgUnix([]byte{0}, rights, nil) // conn: *net.UnixConn
//	f.Close()
//
//	// receiver
//	oob := make([]byte, syscall.CmsgSpace(4))
//	_, oobn, _, _, err := conn.ReadMsgUnix(make([]byte, 1), oob)
//	msgs, err := syscall.ParseSocketControlMessage(oob[:oobn])
//	fds, err := syscall.ParseUnixRights(&msgs[0])
//	f := os.NewFile(uintptr(fds[0]), "cuda-memory")
//	p, err := memory.ImportPhysical(ctx, f, size) // size: sent along, as bytes
//	f.Close()
//
// The receiving process maps the memory with AddressRange.Map and gives
// its device access with Mapping.SetAccess, as the exporter did.
func (p *PhysicalMemory) Export() (*os.File, error) {
	const op = "memory.PhysicalMemory.Export"
	if err := p.check(op); err != nil {
		return nil, err
	}
	if !p.shareable {
		return nil, fmt.Errorf("%s: %s was not made with PhysicalOptions.Shareable: %w", op, p, driver.ErrInvalidInput)
	}
	fd := -1
	err := p.hold.Do(func(backend.API) error {
		var r error
		if fd, r = p.vm.MemExportToShareableHandle(p.h, backend.MemHandlePOSIXFileDescriptor, 0); r != nil {
			return fmt.Errorf("%s: cuMemExportToShareableHandle(POSIX_FILE_DESCRIPTOR): %w", p, r)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	return os.NewFile(uintptr(fd), fmt.Sprintf("cuda-memory-%#x", p.h)), nil
}

// ImportPhysical opens memory another process (or this one) exported with
// [PhysicalMemory.Export], from its file descriptor (cuMemImportFromShareableHandle,
// CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR), as PhysicalMemory of ctx's
// driver. size is the exported memory's size (PhysicalMemory.Size on the
// exporting side, which sends it along: the descriptor does not say it), a
// positive multiple of Granularity; a size larger than the memory makes
// Map fail. The memory must be on ctx's device (driver.ErrWrongContext
// otherwise; the handle is released). f stays the caller's to close (at once, if it likes: the memory
// does not depend on it). The returned memory is owned like NewPhysical's:
// Close releases this process's handle; the memory lives until every
// process has released and unmapped it. A descriptor that is no exported
// CUDA memory is refused by the driver.
func ImportPhysical(ctx *driver.Context, f *os.File, size int) (*PhysicalMemory, error) {
	const op = "memory.ImportPhysical"
	if f == nil {
		return nil, fmt.Errorf("%s: nil file: %w", op, driver.ErrInvalidInput)
	}
	c, vm, err := vmOf(op, ctx)
	if err != nil {
		return nil, err
	}
	raw, err := f.SyscallConn()
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w (%w)", op, f.Name(), err, driver.ErrInvalidInput)
	}
	h, err := c.Hold()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	var ph, g, n uintptr
	made := false
	err = h.Do(func(backend.API) error {
		var r error
		if g, r = granularity(vm, ctx, backend.MemGranularityMinimum); r != nil {
			return r
		}
		if n, r = vmSize("size", size, g, true); r != nil {
			return r
		}
		if cerr := raw.Control(func(fd uintptr) {
			ph, r = vm.MemImportFromShareableHandle(int(fd), backend.MemHandlePOSIXFileDescriptor)
		}); cerr != nil {
			return fmt.Errorf("%s: %w (%w)", f.Name(), cerr, driver.ErrInvalidInput)
		}
		if r != nil {
			return fmt.Errorf("%s: cuMemImportFromShareableHandle(POSIX_FILE_DESCRIPTOR): %w", f.Name(), r)
		}
		made = true
		prop, r := vm.MemGetAllocationPropertiesFromHandle(ph)
		if r != nil {
			return fmt.Errorf("cuMemGetAllocationPropertiesFromHandle: %w", r)
		}
		if dev := ctx.Device().Ordinal(); prop.Location.Type != backend.MemLocationDevice || int(prop.Location.ID) != dev {
			return fmt.Errorf("the memory is at location %d/%d, not on device %d of %s: %w",
				prop.Location.Type, prop.Location.ID, dev, ctx, driver.ErrWrongContext)
		}
		return nil
	})
	if err != nil {
		if made {
			err = h.Undo(err, func(backend.API) error { return vm.MemRelease(ph) })
		}
		return nil, h.Drop(fmt.Errorf("%s: %w", op, err))
	}
	return &PhysicalMemory{ctx: ctx, hold: h, vm: vm, h: ph, size: n, g: g, shareable: true, imported: true}, nil
}
