package conformance

import (
	"testing"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/memory"
)

// testPitched checks pitched 2D arrays: AllocPitched and the 2D copies
// between them and host rows of another length.
func testPitched(t *testing.T, drv *driver.Driver) {
	if _, ok := raw(t, drv).(backend.Pitched); !ok {
		t.Skip("the backend has no pitched allocations")
	}
	ctx, s := memSetup(t, drv)
	const w, h, rowLen = 100, 7, 130
	p, err := memory.AllocPitched[float32](ctx, w, h)
	must(t, err)
	defer func() { must(t, p.Close()) }()
	compare(t, p.Pitch(), ">=", 4*w)
	equal(t, p.Pitch()%4, 0)
	equal(t, p.Width(), w)
	equal(t, p.Height(), h)

	src := make([]float32, (h-1)*rowLen+w)
	for i := range src {
		src[i] = float32(i)
	}
	// The padding past each row is read below (memRead): written first, so
	// that the race detector sees no read of unwritten memory.
	must(t, memory.Fill(s, p.Buffer(), 0))
	must(t, s.Synchronize())
	must(t, memory.CopyToPitched(p, src, rowLen))
	// Dense rows back, through the async form.
	dense := make([]float32, w*h)
	must(t, memory.CopyFromPitchedAsync(s, dense, w, p))
	must(t, s.Synchronize())
	for y := range h {
		for x := range w {
			if got, want := dense[y*w+x], src[y*rowLen+x]; got != want {
				t.Fatalf("(%d, %d) = %v, want %v", x, y, got, want)
			}
		}
	}
	// Row y of the device array starts Pitch bytes after row y-1.
	all := memRead(t, p.Buffer())
	equal(t, all[p.Pitch()/4*3+5], src[3*rowLen+5])

	again := make([]float32, len(src))
	must(t, memory.CopyToPitchedAsync(s, p, dense, w))
	must(t, s.Synchronize())
	must(t, memory.CopyFromPitched(again, rowLen, p))
	equal(t, again[6*rowLen+99], src[6*rowLen+99])
	equal(t, again[rowLen-1], float32(0), "the elements between rows are left alone")

	_, err = memory.AllocPitched[byte](ctx, 10, 10)
	errorIs(t, err, driver.ErrInvalidValue)
	_, err = memory.AllocPitched[float64](ctx, 0, 10)
	errorIs(t, err, driver.ErrInvalidValue)
	errorIs(t, memory.CopyToPitched(p, src, w-1), driver.ErrInvalidValue)
	errorIs(t, memory.CopyToPitched(p, src[:10], rowLen), driver.ErrInvalidValue)
}

// testPitchedRows checks the row-slice forms of the 2D copies.
func testPitchedRows(t *testing.T, drv *driver.Driver) {
	if _, ok := raw(t, drv).(backend.Pitched); !ok {
		t.Skip("the backend has no pitched allocations")
	}
	ctx, _ := memSetup(t, drv)
	p, err := memory.AllocPitched[int64](ctx, 5, 3)
	must(t, err)
	defer func() { must(t, p.Close()) }()
	rows := [][]int64{{1, 2, 3, 4, 5}, {6, 7, 8, 9, 10}, {11, 12, 13, 14, 15}}
	must(t, memory.CopyRowsToPitched(p, rows))
	back := [][]int64{make([]int64, 5), make([]int64, 6), make([]int64, 5)}
	must(t, memory.CopyRowsFromPitched(back, p))
	equal(t, back[1][:5], rows[1])
	equal(t, back[1][5], int64(0))
	equal(t, back[2], rows[2])
	flat := make([]int64, 15)
	must(t, memory.CopyFromPitched(flat, 5, p))
	equal(t, flat[10:], rows[2])

	errorIs(t, memory.CopyRowsToPitched(p, rows[:2]), driver.ErrInvalidValue)
	errorIs(t, memory.CopyRowsToPitched(p, [][]int64{{1}, {2}, {3}}), driver.ErrInvalidValue)
}
