package cufft

import (
	"github.com/nocgo/cuda/driver/backend"
)

// layout is one side (input or output) of a plan: the embedding, the
// stride and the distance between batches, in elements.
type layout struct {
	embed        []int64
	stride, dist int64
}

// index returns the element offset of logical position pos (one index per
// axis) in batch b.
func (l *layout) index(pos []int64, b int64) int64 {
	var k int64
	for i, p := range pos {
		if i > 0 {
			k *= l.embed[i]
		}
		k += p
	}
	return b*l.dist + l.stride*k
}

// extent returns the elements that a side of logical sizes dims spans over
// batch batches: one past its largest offset. A made plan's layouts span
// at most maxSpan elements (spans checks).
func (l *layout) extent(dims []int64, batch int64) int64 {
	last := make([]int64, len(dims))
	for i, d := range dims {
		last[i] = d - 1
	}
	return l.index(last, batch-1) + 1
}

// maxSpan bounds the elements a layout may span: its bytes (16 an element
// at most) then fit an int64.
const maxSpan = 1<<63/16 - 1

// spans reports whether the side spans at most maxSpan elements: whether
// extent (and every index) computes without wrapping, for strides,
// distances and embeddings as large as a caller likes.
func (l *layout) spans(dims []int64, batch int64) bool {
	mul := func(a, b int64) (int64, bool) {
		if a != 0 && b > maxSpan/a {
			return 0, false
		}
		return a * b, true
	}
	var k int64
	for i, d := range dims {
		if i > 0 {
			var ok bool
			if k, ok = mul(k, l.embed[i]); !ok {
				return false
			}
		}
		if k > maxSpan-(d-1) {
			return false
		}
		k += d - 1
	}
	a, ok1 := mul(batch-1, l.dist)
	b, ok2 := mul(l.stride, k)
	return ok1 && ok2 && a <= maxSpan-b-1
}

// plan is a made plan.
type plan struct {
	made      bool
	auto      bool
	work      uintptr
	workSize  uintptr
	stream    uintptr
	typ       backend.FFTType
	n         []int64
	batch     int64
	in, out   layout
	inDims    []int64 // the logical sizes of each side: n, or n with the last axis n/2+1 on the complex side
	outDims   []int64
	basicReal bool // basic layout: an in-place real transform pads its real rows
}

// halfDims is n with the last axis n/2+1.
func halfDims(n []int64) []int64 {
	h := append([]int64(nil), n...)
	h[len(h)-1] = h[len(h)-1]/2 + 1
	return h
}

func product(d []int64) int64 {
	p := int64(1)
	for _, x := range d {
		p *= x
	}
	return p
}

// sides returns the logical sizes of the input and output.
func sides(t backend.FFTType, n []int64) (in, out []int64) {
	switch t {
	case backend.FFTR2C, backend.FFTD2Z:
		return n, halfDims(n)
	case backend.FFTC2R, backend.FFTZ2D:
		return halfDims(n), n
	}
	return n, n
}

// basic returns the basic layout of a side of logical sizes dims; padded
// rows for the real side of an in-place transform.
func basic(dims []int64, padLast int64) layout {
	e := append([]int64(nil), dims...)
	if padLast > 0 {
		e[len(e)-1] = padLast
	}
	return layout{embed: e, stride: 1, dist: product(e)}
}
