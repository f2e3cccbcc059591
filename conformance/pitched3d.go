package conformance

import (
	"testing"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/memory"
)

// testPitched3D checks pitched 3D volumes: a round trip through the
// device, the row padding left unwritten, and bad inputs.
func testPitched3D(t *testing.T, drv *driver.Driver) {
	if _, ok := raw(t, drv).(backend.Copies3D); !ok {
		t.Skip("the backend has no 3D copies")
	}
	ctx, s := memSetup(t, drv)
	const w, h, d = 33, 5, 4
	v, err := memory.AllocPitched3D[float32](ctx, w, h, d)
	must(t, err)
	defer func() { must(t, v.Close()) }()
	equal(t, v.Width(), w)
	equal(t, v.Height(), h)
	equal(t, v.Depth(), d)
	compare(t, v.Pitch(), ">=", 4*w)
	rowElems := v.Pitch() / 4
	equal(t, v.Buffer().Len(), rowElems*h*d)

	const sentinel = float32(-7)
	must(t, memory.Fill(s, v.Buffer(), sentinel))
	must(t, s.Synchronize())
	src := memIota(w*h*d, 1)
	must(t, memory.CopyToPitched3D(v, src))

	all := memRead(t, v.Buffer())
	for z := range d {
		for y := range h {
			row := all[(z*h+y)*rowElems:][:rowElems]
			memSame(t, src[(z*h+y)*w:][:w], row[:w], "row %d of slice %d", y, z)
			for x := w; x < rowElems; x++ {
				if row[x] != sentinel {
					t.Fatalf("padding (%d, %d, %d) = %v, want %v untouched", x, y, z, row[x], sentinel)
				}
			}
		}
	}

	back := make([]float32, w*h*d)
	must(t, memory.CopyFromPitched3D(back, v))
	memSame(t, src, back)

	// Async round trip with other data.
	src2 := memIota(w*h*d, 1000)
	must(t, memory.CopyToPitched3DAsync(s, v, src2))
	back2 := make([]float32, w*h*d)
	must(t, memory.CopyFromPitched3DAsync(s, back2, v))
	must(t, s.Synchronize())
	memSame(t, src2, back2)

	_, err = memory.AllocPitched3D[float32](ctx, w, h, 0)
	errorIs(t, err, driver.ErrInvalidValue)
	_, err = memory.AllocPitched3D[float32](ctx, w, 1<<20, 1<<20)
	errorIs(t, err, driver.ErrInvalidValue)
	_, err = memory.AllocPitched3D[byte](ctx, w, h, d)
	errorIs(t, err, driver.ErrInvalidValue)
	errorIs(t, memory.CopyToPitched3D(v, src[:len(src)-1]), driver.ErrInvalidValue)
	errorIs(t, memory.CopyFromPitched3D(make([]float32, len(src)+1), v), driver.ErrInvalidValue)
	errorIs(t, memory.CopyToPitched3D(nil, src), driver.ErrInvalidValue)

	closed, err := memory.AllocPitched3D[int32](ctx, 4, 2, 2)
	must(t, err)
	must(t, closed.Close())
	must(t, closed.Close())
	errorIs(t, memory.CopyToPitched3D(closed, make([]int32, 16)), driver.ErrClosed)
}
