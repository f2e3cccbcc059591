package memory

import (
	"fmt"
	"runtime"
	"unsafe"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/core"
)

// CopyRowsToPitched copies rows, Height slices of Width elements each, into
// dst, one synchronous copy per row (cuMemcpy2D); a flat slice with
// CopyToPitched is one copy for all. Every row is checked before anything
// is copied: a wrong count or length is an error wrapping ErrInvalidValue.
func CopyRowsToPitched[T any](dst *Pitched[T], rows [][]T) error {
	return copyRows("memory.CopyRowsToPitched", dst, rows, true)
}

// CopyRowsFromPitched copies src into rows, Height slices of at least
// Width elements each, one synchronous copy per row (cuMemcpy2D).
func CopyRowsFromPitched[T any](rows [][]T, src *Pitched[T]) error {
	return copyRows("memory.CopyRowsFromPitched", src, rows, false)
}

func copyRows[T any](op string, p *Pitched[T], rows [][]T, toDevice bool) (err error) {
	if p == nil {
		return fmt.Errorf("%s: nil pitched array: %w", op, driver.ErrInvalidInput)
	}
	if err := p.b.usable(op, "pitched"); err != nil {
		return err
	}
	if len(rows) != p.height {
		return fmt.Errorf("%s: %d rows for a height of %d: %w", op, len(rows), p.height, driver.ErrInvalidInput)
	}
	for y, r := range rows {
		if len(r) < p.width || (toDevice && len(r) != p.width) {
			return fmt.Errorf("%s: row %d has %d elements for a width of %d: %w", op, y, len(r), p.width, driver.ErrInvalidInput)
		}
	}
	size := p.b.elemSize()
	api := p.b.a.hold.Context().API
	pa := api.(backend.Pitched)
	b, err := p.b.a.hold.Bind()
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	defer b.Done(&err)
	for y, r := range rows {
		c := &backend.Memcpy2D{WidthInBytes: uintptr(p.width) * size, Height: 1}
		hp, dp := unsafe.Pointer(unsafe.SliceData(r)), p.b.ptr+uintptr(y)*p.pitch
		if toDevice {
			c.SrcMemoryType, c.SrcHost, c.SrcPitch = backend.MemoryTypeHost, hp, c.WidthInBytes
			c.DstMemoryType, c.DstDevice, c.DstPitch = backend.MemoryTypeDevice, dp, p.pitch
		} else {
			c.SrcMemoryType, c.SrcDevice, c.SrcPitch = backend.MemoryTypeDevice, dp, p.pitch
			c.DstMemoryType, c.DstHost, c.DstPitch = backend.MemoryTypeHost, hp, c.WidthInBytes
		}
		e := pa.Memcpy2D(c)
		runtime.KeepAlive(r)
		if e != nil {
			return fmt.Errorf("%s: row %d of %s: cuMemcpy2D: %w", op, y, p.b, core.Unusable(e))
		}
	}
	if r := api.StreamSynchronize(backend.StreamLegacy); r != nil {
		return fmt.Errorf("%s: cuStreamSynchronize(CU_STREAM_LEGACY): %w", op, core.Unusable(r))
	}
	return nil
}
