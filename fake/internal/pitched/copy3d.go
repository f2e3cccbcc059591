package pitched

import (
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
)

// side3D is one side of a 3D copy.
type side3D struct {
	t                     backend.MemoryType
	host, dev             uintptr // host is only tested for nil
	x, y, z, pitch, slice uintptr // slice is the height in rows
}

func sides3D(p *backend.Memcpy3D) [2]side3D {
	return [2]side3D{
		{p.SrcMemoryType, uintptr(p.SrcHost), p.SrcDevice, p.SrcXInBytes, p.SrcY, p.SrcZ, p.SrcPitch, p.SrcHeight},
		{p.DstMemoryType, uintptr(p.DstHost), p.DstDevice, p.DstXInBytes, p.DstY, p.DstZ, p.DstPitch, p.DstHeight},
	}
}

// extent3D returns the offset of the box's first byte from the side's base
// and the bytes from there to its last byte + 1.
func extent3D(s side3D, width, height, depth uintptr) (start, n uintptr, ok bool) {
	row, ok1 := mulAdd(s.z, s.slice, s.y)
	start, ok2 := mulAdd(row, s.pitch, s.x)
	last, ok3 := mulAdd(depth-1, s.slice, height-1)
	n, ok4 := mulAdd(last, s.pitch, width)
	return start, n, ok1 && ok2 && ok3 && ok4 && start+n >= start
}

// check3DLocked validates p as the driver does: pitches at least the row
// (x + width), heights at least the rows (y + height), host pointers not
// nil, device boxes inside one allocation; all ErrInvalidValue. The core's
// lock is held.
func (r *Room) check3DLocked(p *backend.Memcpy3D) error {
	if p.WidthInBytes == 0 || p.Height == 0 || p.Depth == 0 {
		return nil
	}
	for _, s := range sides3D(p) {
		if s.x+p.WidthInBytes < s.x || s.pitch < s.x+p.WidthInBytes || s.y+p.Height < s.y || s.slice < s.y+p.Height {
			return driver.ErrInvalidValue
		}
		start, n, ok := extent3D(s, p.WidthInBytes, p.Height, p.Depth)
		if !ok || n > r.core.MaxStorage() {
			return driver.ErrInvalidValue
		}
		switch s.t {
		case backend.MemoryTypeHost:
			if s.host == 0 {
				return driver.ErrInvalidValue
			}
		case backend.MemoryTypeDevice:
			if s.dev+start < s.dev {
				return driver.ErrInvalidValue
			}
			if err := r.core.CheckSpanLocked(s.dev+start, n); err != nil {
				return err
			}
		default:
			return driver.ErrInvalidValue
		}
	}
	return nil
}

// work3D prepares a 3D copy (the core's lock is held) and returns its work.
func (r *Room) work3D(p backend.Memcpy3D, async bool) (func() error, error) {
	if err := r.check3DLocked(&p); err != nil {
		return nil, err
	}
	if p.WidthInBytes == 0 || p.Height == 0 || p.Depth == 0 {
		return func() error { return nil }, nil
	}
	sd := sides3D(&p)
	var srcHost, dstHost []byte
	if p.SrcMemoryType == backend.MemoryTypeHost {
		start, n, _ := extent3D(sd[0], p.WidthInBytes, p.Height, p.Depth)
		srcHost = r.stage(p.SrcHost, start+n, async)
	}
	if p.DstMemoryType == backend.MemoryTypeHost {
		start, n, _ := extent3D(sd[1], p.WidthInBytes, p.Height, p.Depth)
		dstHost = hostBytes(p.DstHost, start+n)
	}
	return func() error {
		for z := range p.Depth {
			// Slice z of a side is rows from (z0+z)*slice + y0.
			src, err := r.rows(p.SrcMemoryType, srcHost, p.SrcDevice, p.SrcXInBytes, (p.SrcZ+z)*p.SrcHeight+p.SrcY, p.SrcPitch, p.WidthInBytes, p.Height, srcAccess(p.DstMemoryType))
			if err != nil {
				return err
			}
			dst, err := r.rows(p.DstMemoryType, dstHost, p.DstDevice, p.DstXInBytes, (p.DstZ+z)*p.DstHeight+p.DstY, p.DstPitch, p.WidthInBytes, p.Height, Write)
			if err != nil {
				return err
			}
			for i := range src {
				copy(dst[i], src[i])
			}
		}
		return nil
	}, nil
}
