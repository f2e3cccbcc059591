//go:build linux && (amd64 || arm64)

package vmm

import (
	"fmt"
	"os"
	"strings"
	"syscall"
	"unsafe"
)

// The operating-system side of the fake's virtual memory: a physical
// allocation is a memfd (so that its shareable handle is a real file
// descriptor, and two mappings of it are two views of the same pages), a
// reserved range is an inaccessible anonymous mapping of host address
// space the size of the range, and a mapping maps the memfd over its part
// of that host range. Copies and kernels then read and write through the
// host range, and a copy that crosses from one mapping into the next sees
// contiguous bytes, as on the GPU.

// Supported reports whether this build of the fake has virtual memory
// management.
const Supported = true

// memfdName prefixes the name of every memfd the fake makes (seen in
// /proc/self/fd): "nocgo-cuda-fake-vmm dev=0 types=1", the device ordinal
// and the shareable handle types, which a fake in another process reads
// to import the memory (see osForeignPhys).
const memfdName = "nocgo-cuda-fake-vmm"

// osPhysCreate makes size bytes of shared memory filled with fill (the
// fake's poison byte) and returns its descriptor (close-on-exec), named for
// a memory of device dev with the handle types.
func osPhysCreate(size uintptr, dev int32, types uint32, fill byte) (int, error) {
	name, err := syscall.BytePtrFromString(fmt.Sprintf("%s dev=%d types=%d", memfdName, dev, types))
	if err != nil {
		return -1, err
	}
	const mfdCloexec = 0x1
	r, _, e := syscall.Syscall(sysMemfdCreate, uintptr(unsafe.Pointer(name)), mfdCloexec, 0)
	if e != 0 {
		return -1, fmt.Errorf("memfd_create: %w", e)
	}
	fd := int(r)
	if err := syscall.Ftruncate(fd, int64(size)); err != nil {
		syscall.Close(fd)
		return -1, fmt.Errorf("ftruncate: %w", err)
	}
	view, err := syscall.Mmap(fd, 0, int(size), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	if err != nil {
		syscall.Close(fd)
		return -1, fmt.Errorf("mmap: %w", err)
	}
	view[0] = fill
	for i := 1; i < len(view); i *= 2 {
		copy(view[i:], view[:i])
	}
	syscall.Munmap(view)
	return fd, nil
}

// osFileKey names the file behind fd: the same for every descriptor of it,
// in this process or another.
func osFileKey(fd int) (fileKey, uintptr, error) {
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return fileKey{}, 0, err
	}
	return fileKey{dev: uint64(st.Dev), ino: uint64(st.Ino)}, uintptr(st.Size), nil
}

// osDup returns a new close-on-exec descriptor of the file behind fd.
func osDup(fd int) (int, error) {
	r, _, e := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_DUPFD_CLOEXEC, 0)
	if e != 0 {
		return -1, e
	}
	return int(r), nil
}

// osClose closes a descriptor the fake owns.
func osClose(fd int) { syscall.Close(fd) }

// osReserve takes size bytes of inaccessible host address space (no
// memory behind it).
func osReserve(size uintptr) ([]byte, error) {
	if uintptr(int(size)) != size || int(size) < 0 {
		return nil, syscall.ENOMEM
	}
	return syscall.Mmap(-1, 0, int(size), syscall.PROT_NONE, syscall.MAP_PRIVATE|syscall.MAP_ANON|syscall.MAP_NORESERVE)
}

// osRelease gives a reserved host range back.
func osRelease(shadow []byte) error { return syscall.Munmap(shadow) }

// osMapFixed maps len(at) bytes of fd from offset over at, readable and
// writable, shared with every other mapping of fd.
func osMapFixed(at []byte, fd int, offset uintptr) error {
	return mmapFixed(at, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED, fd, offset)
}

// osUnmapFixed makes at inaccessible address space again.
func osUnmapFixed(at []byte) error {
	return mmapFixed(at, syscall.PROT_NONE, syscall.MAP_PRIVATE|syscall.MAP_ANON|syscall.MAP_NORESERVE, -1, 0)
}

func mmapFixed(at []byte, prot, flags, fd int, offset uintptr) error {
	addr := uintptr(unsafe.Pointer(&at[0]))
	r, _, e := syscall.Syscall6(syscall.SYS_MMAP, addr, uintptr(len(at)), uintptr(prot), uintptr(flags|syscall.MAP_FIXED), uintptr(fd), offset)
	if e != 0 {
		return e
	}
	if r != addr {
		return syscall.EINVAL
	}
	return nil
}

// osForeignPhys reads what a memfd made by a fake (in any process) says of
// itself: its device ordinal and handle types; ok is false for any other
// descriptor.
func osForeignPhys(fd int) (dev int32, types uint32, ok bool) {
	link, err := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", fd))
	if err != nil {
		return 0, 0, false
	}
	rest, found := strings.CutPrefix(link, "/memfd:"+memfdName+" ")
	if !found {
		return 0, 0, false
	}
	if _, err := fmt.Sscanf(rest, "dev=%d types=%d", &dev, &types); err != nil {
		return 0, 0, false
	}
	return dev, types, true
}
