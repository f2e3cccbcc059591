package race

import (
	"runtime"
	"strings"
	"sync"
	"testing"
)

// testCore is a core of one allocation, for the detector alone.
type testCore struct {
	mu      sync.Mutex
	base    uintptr
	size    uintptr
	shadow  Shadow
	reports int
}

func (c *testCore) Find(p uintptr) (Memory, bool) {
	if p < c.base || p >= c.base+c.size {
		return Memory{}, false
	}
	return Memory{Base: c.base, Size: c.size, Shadow: &c.shadow}, true
}

func (c *testCore) Report(fn func()) {
	c.mu.Lock()
	c.reports++
	c.mu.Unlock()
	fn()
}

func newTest(t *testing.T) (*Detector, *testCore, *[]Hazard) {
	t.Helper()
	c := &testCore{base: 0x1000, size: 256}
	var got []Hazard
	var mu sync.Mutex
	d := New(c, func(h Hazard) { mu.Lock(); got = append(got, h); mu.Unlock() })
	return d, c, &got
}

// run enqueues work on s writing or reading [lo, hi), and runs it.
func run(d *Detector, s Stream, seq uint64, kind AccessKind, lo, hi uintptr) *Op {
	op := d.Enqueued(s, seq)
	d.Runs(op, "op", []Run{{Lo: lo, Hi: hi, Kind: kind}})
	d.Done(op)
	return op
}

// Two streams, a write and a read of the same bytes: a race unless an
// event orders them; the report function runs through Core.Report.
func TestTwoStreams(t *testing.T) {
	for _, ordered := range []bool{false, true} {
		d, c, got := newTest(t)
		a, b := Stream{Key: "a", Name: "stream a"}, Stream{Key: "b", Name: "stream b"}
		run(d, a, 1, Write, 0x1000, 0x1010)
		if ordered {
			d.Recorded("ev", a)
			d.Waits("b", "ev")
		}
		run(d, b, 2, Read, 0x1008, 0x1010)
		if ordered {
			if len(*got) != 0 {
				t.Fatalf("ordered by an event, yet: %v", *got)
			}
			continue
		}
		if len(*got) != 1 || (*got)[0].Kind != Race || (*got)[0].Addr != 0x1008 || (*got)[0].Size != 8 {
			t.Fatalf("want one race on 8 bytes at 0x1008, got %v", *got)
		}
		if c.reports != 1 {
			t.Errorf("the report ran %d times through Core.Report, want 1", c.reports)
		}
		if fix := (*got)[0].Fix(); !strings.Contains(fix, "record an event on stream a after work #1 and wait for it on stream b") {
			t.Errorf("Fix: %s", fix)
		}
	}
}

// A read that runs before earlier enqueued, unordered work writes the same
// bytes is held, and folded into the race that write finds; with no such
// write it is delivered when that work is done.
func TestUnwrittenReadFolded(t *testing.T) {
	for _, writes := range []bool{true, false} {
		d, _, got := newTest(t)
		a, b := Stream{Key: "a", Name: "a"}, Stream{Key: "b", Name: "b"}
		w := d.Enqueued(a, 1) // enqueued first, runs last
		r := d.Enqueued(b, 2)
		d.Runs(r, "read", []Run{{Lo: 0x1000, Hi: 0x1010, Kind: Read}})
		d.Done(r)
		if len(*got) != 0 {
			t.Fatalf("the read is held while work #1 may explain it: %v", *got)
		}
		if writes {
			d.Runs(w, "write", []Run{{Lo: 0x1000, Hi: 0x1010, Kind: Write}})
		}
		d.Done(w)
		if len(*got) != 1 {
			t.Fatalf("want one report, got %v", *got)
		}
		h := (*got)[0]
		if writes && (h.Kind != Race || !h.Unwritten) {
			t.Errorf("want a race with Unwritten, got %v", h)
		}
		if !writes && h.Kind != UninitializedRead {
			t.Errorf("want the uninitialised read, got %v", h)
		}
	}
}

// A stream-ordered allocation is an access every use must follow, and
// writes nothing: a later read on the same stream still reads unwritten
// bytes.
func TestAlloc(t *testing.T) {
	d, _, got := newTest(t)
	a, b := Stream{Key: "a", Name: "a"}, Stream{Key: "b", Name: "b"}
	run(d, a, 1, Alloc, 0x1000, 0x1100)
	run(d, a, 2, Read, 0x1000, 0x1004)
	if len(*got) != 1 || (*got)[0].Kind != UninitializedRead {
		t.Fatalf("same stream: want only the uninitialised read, got %v", *got)
	}
	run(d, b, 3, Write, 0x1010, 0x1014)
	if len(*got) != 2 || (*got)[1].Kind != Race || (*got)[1].Previous.Kind != "allocation" {
		t.Fatalf("another stream that never waited: want a race with the allocation, got %v", *got)
	}
}

// The library's own frames are left out of a stack, its tests' and the
// conformance suite's are kept.
func TestLibraryFrame(t *testing.T) {
	for fn, want := range map[string]bool{
		"github.com/nocgo/cuda/memory.Fill[...]":                  true,
		"github.com/nocgo/cuda/fake.(*fakeBackend).MemsetD8Async": true,
		"github.com/nocgo/cuda/internal/core.(*Hold).Do":          true,
		"github.com/nocgo/cuda/conformance.testRaces":             false,
		"github.com/nocgo/cuda/streamer.X":                        false,
		"main.main":                                               false,
	} {
		if got := libraryFrame(runtime.Frame{Function: fn, File: "x.go"}); got != want {
			t.Errorf("libraryFrame(%s) = %v, want %v", fn, got, want)
		}
	}
	if libraryFrame(runtime.Frame{Function: "github.com/nocgo/cuda/memory.TestX", File: "memory/x_test.go"}) {
		t.Error("a test of the library's is the user's code")
	}
}

// A nil Detector is detection off: nothing panics, nothing is found.
func TestNilDetector(t *testing.T) {
	var d *Detector
	op := d.Enqueued(Stream{Key: 1}, 1)
	d.Runs(op, "x", []Run{{Lo: 1, Hi: 2, Kind: Write}})
	d.Range(1, 1, Write, "x")
	d.Copy(1, 2, 3)
	d.Done(op)
	d.HostSawStreams(1)
	d.Order(nil, nil)
	if d.Hazards() != nil || d.TakeHazards() != nil || d.Recorder("k") != nil {
		t.Error("a nil detector found something")
	}
	if err := d.Run(op, func() error { return nil }); err != nil {
		t.Error(err)
	}
}

// A use enqueued after the free that frees its memory is told to move
// before the free, not to wait for it.
func TestFixUseAfterFree(t *testing.T) {
	h := Hazard{Kind: Race,
		Previous: Access{Op: "cuMemFreeAsync", Kind: "free", Stream: "stream a", Item: 3},
		Current:  Access{Op: "memcpy DtoH", Kind: "read", Stream: "stream b", Item: 5}}
	if fix := h.Fix(); !strings.Contains(fix, "work #5 uses memory that work #3, enqueued before it, frees") {
		t.Errorf("Fix: %s", fix)
	}
}
