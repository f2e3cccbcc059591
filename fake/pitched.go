package fake

import (
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/fake/internal/race"
	"github.com/nocgo/cuda/internal/abi"
)

// pitchAlign is the fake's row alignment of pitched allocations: 512
// bytes, what cuMemAllocPitch gives on recent GPUs for widths up to it.
const pitchAlign = 512

// MemAllocPitch is cuMemAllocPitch in the current context: rows of
// widthBytes rounded up to pitchAlign. elemSize must be 4, 8 or 16, and
// width and height not 0 (ErrInvalidValue, as on the driver).
func (b *fakeBackend) MemAllocPitch(widthBytes, height uintptr, elemSize uint32) (uintptr, uintptr, error) {
	if err := b.enter(abi.CuMemAllocPitch); err != nil {
		return 0, 0, err
	}
	if (elemSize != 4 && elemSize != 8 && elemSize != 16) || widthBytes == 0 || height == 0 || widthBytes > maxStorage {
		return 0, 0, driver.ErrInvalidValue
	}
	pitch := (widthBytes + pitchAlign - 1) &^ (pitchAlign - 1)
	if height > maxStorage/pitch {
		return 0, 0, driver.ErrOutOfMemory
	}
	p, err := b.MemAlloc(pitch * height)
	if err != nil {
		return 0, 0, err
	}
	return p, pitch, nil
}

// check2DLocked validates p: host pointers not nil, pitches at least the
// width, device rows inside one allocation.
func (b *fakeBackend) check2DLocked(p *backend.Memcpy2D) error {
	if p.WidthInBytes == 0 || p.Height == 0 {
		return nil
	}
	for _, side := range []struct {
		t                backend.MemoryType
		host             bool
		dev, x, y, pitch uintptr
	}{
		{p.SrcMemoryType, p.SrcHost != nil, p.SrcDevice, p.SrcXInBytes, p.SrcY, p.SrcPitch},
		{p.DstMemoryType, p.DstHost != nil, p.DstDevice, p.DstXInBytes, p.DstY, p.DstPitch},
	} {
		if side.x+p.WidthInBytes < side.x || side.pitch < side.x+p.WidthInBytes || side.y+p.Height < side.y {
			return driver.ErrInvalidValue
		}
		// The last row's end, from the side's base: it must not wrap,
		// nor the start of the first.
		end, ok := mulAdd(side.y+p.Height-1, side.pitch, side.x+p.WidthInBytes)
		if !ok || end > maxStorage || side.dev+end < side.dev {
			return driver.ErrInvalidValue
		}
		switch side.t {
		case backend.MemoryTypeHost:
			if !side.host {
				return driver.ErrInvalidValue
			}
		case backend.MemoryTypeDevice:
			start := side.dev + side.y*side.pitch + side.x
			if _, err := b.spanLocked(start, (p.Height-1)*side.pitch+p.WidthInBytes); err != nil {
				return err
			}
		default:
			return driver.ErrInvalidValue
		}
	}
	return nil
}

// rows returns the row slices of one side of a copy.
func (b *fakeBackend) rows(t backend.MemoryType, host []byte, dev, x, y, pitch, width, height uintptr, kind race.AccessKind) ([][]byte, error) {
	out := make([][]byte, height)
	for r := range height {
		off := (y+r)*pitch + x
		if t == backend.MemoryTypeHost {
			out[r] = host[off : off+width]
			continue
		}
		row, err := b.span(dev+off, width)
		if err != nil {
			return nil, driver.ErrIllegalAddress
		}
		b.race.Range(dev+off, width, kind, "memcpy 2D/3D")
		out[r] = row
	}
	return out, nil
}

func (b *fakeBackend) work2D(p backend.Memcpy2D, async bool) (func() error, error) {
	if err := b.check2DLocked(&p); err != nil {
		return nil, err
	}
	if p.WidthInBytes == 0 || p.Height == 0 {
		return nop, nil
	}
	extent := func(x, y, pitch uintptr) uintptr { return (y+p.Height-1)*pitch + x + p.WidthInBytes }
	var srcHost, dstHost []byte
	if p.SrcMemoryType == backend.MemoryTypeHost {
		srcHost = hostBytes(p.SrcHost, extent(p.SrcXInBytes, p.SrcY, p.SrcPitch))
		if async && !b.pinnedLocked(p.SrcHost, uintptr(len(srcHost))) {
			srcHost = append([]byte(nil), srcHost...) // staged at enqueue
		}
	}
	if p.DstMemoryType == backend.MemoryTypeHost {
		dstHost = hostBytes(p.DstHost, extent(p.DstXInBytes, p.DstY, p.DstPitch))
	}
	return func() error {
		src, err := b.rows(p.SrcMemoryType, srcHost, p.SrcDevice, p.SrcXInBytes, p.SrcY, p.SrcPitch, p.WidthInBytes, p.Height, srcKind(p.DstMemoryType))
		if err != nil {
			return err
		}
		dst, err := b.rows(p.DstMemoryType, dstHost, p.DstDevice, p.DstXInBytes, p.DstY, p.DstPitch, p.WidthInBytes, p.Height, race.Write)
		if err != nil {
			return err
		}
		for r := range src {
			copy(dst[r], src[r])
		}
		return nil
	}, nil
}

// Memcpy2D is cuMemcpy2D (synchronous; needs a current context).
func (b *fakeBackend) Memcpy2D(p *backend.Memcpy2D) error {
	if p == nil {
		return driver.ErrInvalidValue
	}
	cp := *p
	return b.syncOp(abi.CuMemcpy2D, cp.WidthInBytes*cp.Height, func() (func() error, error) { return b.work2D(cp, false) })
}

// Memcpy2DAsync is cuMemcpy2DAsync: pageable host rows are read at
// enqueue, as the driver stages them.
func (b *fakeBackend) Memcpy2DAsync(p *backend.Memcpy2D, s uintptr) error {
	if p == nil {
		return driver.ErrInvalidValue
	}
	cp := *p
	return b.asyncOp(abi.CuMemcpy2DAsync, cp.WidthInBytes*cp.Height, s, func() (func() error, error) { return b.work2D(cp, true) })
}

var _ backend.Pitched = (*fakeBackend)(nil)

// srcKind is how a copy to memory of type dst reads its source, for the
// race detector: a copy to the host uses what it reads.
func srcKind(dst backend.MemoryType) race.AccessKind {
	if dst == backend.MemoryTypeHost {
		return race.Read
	}
	return race.CopyRead
}
