package pitched

import (
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
)

// check2DLocked validates p: host pointers not nil, pitches at least the
// width, device rows inside one allocation. The core's lock is held.
func (r *Room) check2DLocked(p *backend.Memcpy2D) error {
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
		if !ok || end > r.core.MaxStorage() || side.dev+end < side.dev {
			return driver.ErrInvalidValue
		}
		switch side.t {
		case backend.MemoryTypeHost:
			if !side.host {
				return driver.ErrInvalidValue
			}
		case backend.MemoryTypeDevice:
			start := side.dev + side.y*side.pitch + side.x
			if err := r.core.CheckSpanLocked(start, (p.Height-1)*side.pitch+p.WidthInBytes); err != nil {
				return err
			}
		default:
			return driver.ErrInvalidValue
		}
	}
	return nil
}

// work2D prepares a 2D copy (the core's lock is held) and returns its work.
func (r *Room) work2D(p backend.Memcpy2D, async bool) (func() error, error) {
	if err := r.check2DLocked(&p); err != nil {
		return nil, err
	}
	if p.WidthInBytes == 0 || p.Height == 0 {
		return func() error { return nil }, nil
	}
	extent := func(x, y, pitch uintptr) uintptr { return (y+p.Height-1)*pitch + x + p.WidthInBytes }
	var srcHost, dstHost []byte
	if p.SrcMemoryType == backend.MemoryTypeHost {
		srcHost = r.stage(p.SrcHost, extent(p.SrcXInBytes, p.SrcY, p.SrcPitch), async)
	}
	if p.DstMemoryType == backend.MemoryTypeHost {
		dstHost = hostBytes(p.DstHost, extent(p.DstXInBytes, p.DstY, p.DstPitch))
	}
	return func() error {
		src, err := r.rows(p.SrcMemoryType, srcHost, p.SrcDevice, p.SrcXInBytes, p.SrcY, p.SrcPitch, p.WidthInBytes, p.Height, srcAccess(p.DstMemoryType))
		if err != nil {
			return err
		}
		dst, err := r.rows(p.DstMemoryType, dstHost, p.DstDevice, p.DstXInBytes, p.DstY, p.DstPitch, p.WidthInBytes, p.Height, Write)
		if err != nil {
			return err
		}
		for i := range src {
			copy(dst[i], src[i])
		}
		return nil
	}, nil
}
