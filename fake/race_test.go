package fake

import (
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/fake/internal/race"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver/backend"
)

// fillPTX stores v to p[tid.x] for each thread of one block.
const fillPTX = `
.version 7.8
.target sm_90
.address_size 64

.visible .entry fill(
	.param .u64 fill_param_0,
	.param .u32 fill_param_1
)
{
	.reg .b32 	%r<3>;
	.reg .b64 	%rd<5>;

	ld.param.u64 	%rd1, [fill_param_0];
	ld.param.u32 	%r1, [fill_param_1];
	cvta.to.global.u64 	%rd2, %rd1;
	mov.u32 	%r2, %tid.x;
	mul.wide.u32 	%rd3, %r2, 4;
	add.s64 	%rd4, %rd2, %rd3;
	st.global.u32 	[%rd4], %r1;
	ret;
}
`

// fillGridPTX is fillPTX over the whole grid: thread i of the grid
// writes element i, so the blocks of one launch touch disjoint bytes.
const fillGridPTX = `
.version 7.8
.target sm_90
.address_size 64

.visible .entry fill(
	.param .u64 fill_param_0,
	.param .u32 fill_param_1
)
{
	.reg .b32 	%r<6>;
	.reg .b64 	%rd<5>;

	ld.param.u64 	%rd1, [fill_param_0];
	ld.param.u32 	%r1, [fill_param_1];
	cvta.to.global.u64 	%rd2, %rd1;
	mov.u32 	%r2, %tid.x;
	mov.u32 	%r3, %ctaid.x;
	mov.u32 	%r4, %ntid.x;
	mad.lo.s32 	%r5, %r3, %r4, %r2;
	mul.wide.u32 	%rd3, %r5, 4;
	add.s64 	%rd4, %rd2, %rd3;
	st.global.u32 	[%rd4], %r1;
	ret;
}
`

// raceBackend is a bound backend with the detector on, and what it reported.
func raceBackend(t *testing.T, opts ...Option) (*fakeBackend, *[]Hazard) {
	t.Helper()
	var got []Hazard
	b := bound(t, append(opts, DetectRaces(func(h Hazard) { got = append(got, h) }))...)
	return b, &got
}

func newStreams(t *testing.T, b *fakeBackend, flags uint32, n int) []uintptr {
	t.Helper()
	var out []uintptr
	for range n {
		s, err := b.StreamCreateWithPriority(flags, 0)
		require.NoError(t, err)
		t.Cleanup(func() { b.StreamDestroy(s) })
		out = append(out, s)
	}
	return out
}

func alloc4K(t *testing.T, b *fakeBackend) uintptr {
	t.Helper()
	p, err := b.MemAlloc(4096)
	require.NoError(t, err)
	t.Cleanup(func() { b.MemFree(p) })
	return p
}

func TestRaceCopiesOnTwoStreams(t *testing.T) {
	b, got := raceBackend(t)
	ss := newStreams(t, b, backend.StreamNonBlocking, 2)
	p := alloc4K(t, b)
	host := make([]byte, 4096)
	require.NoError(t, b.MemsetD8Async(p, 1, 4096, ss[0]))
	require.NoError(t, b.MemcpyDtoHAsync(unsafe.Pointer(&host[0]), p+1024, 1024, ss[1]))
	require.NoError(t, b.CtxSynchronize())
	require.Len(t, *got, 1)
	h := (*got)[0]
	assert.Equal(t, Race, h.Kind)
	assert.Equal(t, p+1024, h.Addr)
	assert.Equal(t, uintptr(1024), h.Size)
	assert.Equal(t, p, h.Alloc)
	assert.ElementsMatch(t, []string{"memset", "memcpy DtoH"}, []string{h.Current.Op, h.Previous.Op})
	assert.NotEqual(t, h.Current.Stream, h.Previous.Stream)
	s := h.String()
	assert.Contains(t, s, "WARNING: DATA RACE between CUDA streams")
	assert.Contains(t, s, "TestRaceCopiesOnTwoStreams", "the enqueuing Go call site")
	assert.Equal(t, *got, b.Fake().Hazards())
	assert.Len(t, b.Fake().TakeHazards(), 1)
	assert.Empty(t, b.Fake().Hazards())
}

func TestRaceOrderedWorkIsQuiet(t *testing.T) {
	cases := map[string]func(b *fakeBackend, s0, s1 uintptr) error{
		"same stream": func(b *fakeBackend, s0, s1 uintptr) error { return nil },
		"event": func(b *fakeBackend, s0, s1 uintptr) error {
			e, err := b.EventCreate(backend.EventDisableTiming)
			if err != nil {
				return err
			}
			defer b.EventDestroy(e)
			if err := b.EventRecord(e, s0); err != nil {
				return err
			}
			return b.StreamWaitEvent(s1, e, 0)
		},
		"stream synchronize": func(b *fakeBackend, s0, s1 uintptr) error { return b.StreamSynchronize(s0) },
		"event synchronize": func(b *fakeBackend, s0, s1 uintptr) error {
			e, err := b.EventCreate(0)
			if err != nil {
				return err
			}
			defer b.EventDestroy(e)
			if err := b.EventRecord(e, s0); err != nil {
				return err
			}
			return b.EventSynchronize(e)
		},
		"context synchronize": func(b *fakeBackend, s0, s1 uintptr) error { return b.CtxSynchronize() },
		"declared":            func(b *fakeBackend, s0, s1 uintptr) error { return b.Fake().DeclareOrder(s0, s1) },
		"declared through the host": func(b *fakeBackend, s0, s1 uintptr) error {
			if err := b.Fake().DeclareOrder(s0, HostOrder); err != nil {
				return err
			}
			return b.Fake().DeclareOrder(HostOrder, s1)
		},
	}
	for name, order := range cases {
		t.Run(name, func(t *testing.T) {
			b, got := raceBackend(t)
			ss := newStreams(t, b, backend.StreamNonBlocking, 2)
			if name == "same stream" {
				ss[1] = ss[0]
			}
			p := alloc4K(t, b)
			host := make([]byte, 4096)
			require.NoError(t, b.MemsetD8Async(p, 1, 4096, ss[0]))
			require.NoError(t, order(b, ss[0], ss[1]))
			require.NoError(t, b.MemcpyDtoHAsync(unsafe.Pointer(&host[0]), p, 4096, ss[1]))
			require.NoError(t, b.CtxSynchronize())
			assert.Empty(t, *got)
			assert.Equal(t, byte(1), host[4095])
		})
	}
}

func TestRaceLegacyStream(t *testing.T) {
	for _, tc := range []struct {
		name  string
		flags uint32
		race  bool
	}{{"blocking stream", 0, false}, {"non-blocking stream", backend.StreamNonBlocking, true}} {
		t.Run(tc.name, func(t *testing.T) {
			b, got := raceBackend(t)
			s := newStreams(t, b, tc.flags, 1)[0]
			p := alloc4K(t, b)
			host := make([]byte, 16)
			require.NoError(t, b.MemsetD32Async(p, 7, 1024, s))
			require.NoError(t, b.MemcpyDtoHAsync(unsafe.Pointer(&host[0]), p, 16, backend.StreamLegacy))
			// and back: the legacy stream's work before a blocking stream's
			require.NoError(t, b.MemsetD32Async(p, 8, 4, backend.StreamLegacy))
			require.NoError(t, b.MemcpyDtoHAsync(unsafe.Pointer(&host[0]), p, 16, s))
			require.NoError(t, b.CtxSynchronize())
			if tc.race {
				assert.Len(t, *got, 3) // read after write, write after write, read after write
			} else {
				assert.Empty(t, *got)
			}
		})
	}
}

func TestRaceUninitialisedRead(t *testing.T) {
	b, got := raceBackend(t)
	p := alloc4K(t, b)
	require.NoError(t, b.MemsetD8(p, 0, 100))
	readDevice(t, b, p, 100) // written: quiet
	assert.Empty(t, *got)
	readDevice(t, b, p, 200)
	require.Len(t, *got, 1)
	h := (*got)[0]
	assert.Equal(t, UninitializedRead, h.Kind)
	assert.Equal(t, p+100, h.Addr)
	assert.Equal(t, uintptr(100), h.Size)
	assert.Contains(t, h.String(), "UNINITIALISED")
	// A device-to-device copy of unwritten bytes is no use of them; but
	// the copy's bytes are as unwritten as the source's.
	q := alloc4K(t, b)
	require.NoError(t, b.MemsetD8(q, 1, 4096))
	require.NoError(t, b.MemcpyDtoD(q, p, 4096))
	assert.Len(t, *got, 1)
	readDevice(t, b, q, 100)
	assert.Len(t, *got, 1, "the source's written bytes")
	readDevice(t, b, q+4000, 96)
	require.Len(t, *got, 2, "the source's unwritten bytes, copied")
	assert.Equal(t, UninitializedRead, (*got)[1].Kind)
	assert.Equal(t, q+4000, (*got)[1].Addr)
}

func TestRacePTXKernelNamesLineAndThread(t *testing.T) {
	b, got := raceBackend(t)
	ss := newStreams(t, b, backend.StreamNonBlocking, 2)
	m, err := b.ModuleLoadData([]byte(fillPTX))
	require.NoError(t, err)
	t.Cleanup(func() { b.ModuleUnload(m) })
	f, err := b.ModuleGetFunction(m, "fill")
	require.NoError(t, err)
	p := alloc4K(t, b)
	v := uint32(3)
	host := make([]byte, 64)
	require.NoError(t, b.LaunchKernel(f, [3]uint32{1, 1, 1}, [3]uint32{32, 1, 1}, 0, ss[0], args(unsafe.Pointer(&p), unsafe.Pointer(&v))))
	require.NoError(t, b.MemcpyDtoHAsync(unsafe.Pointer(&host[0]), p+64, 64, ss[1]))
	require.NoError(t, b.CtxSynchronize())
	require.Len(t, *got, 1)
	h := (*got)[0]
	k := h.Previous
	if h.Current.Kernel != nil {
		k = h.Current
	}
	require.NotNil(t, k.Kernel, "%v", h)
	assert.Equal(t, "kernel fill", k.Op)
	assert.Equal(t, "write", k.Kind)
	assert.Positive(t, k.Kernel.PTXLine)
	assert.Contains(t, k.Kernel.Instr, "st.global.u32")
	assert.Equal(t, p+64, h.Addr)
	assert.Equal(t, uintptr(64), h.Size)
	assert.Contains(t, h.String(), "PTX line")
}

func TestRaceGoKernel(t *testing.T) {
	body := func(th Thread, p Ptr) { Store(th, p, th.X(), int32(th.X())) }
	b, got := raceBackend(t, Kernel("store", body))
	ss := newStreams(t, b, backend.StreamNonBlocking, 2)
	m, err := b.ModuleLoadData([]byte(".version 7.8\n.target sm_90\n.address_size 64\n.visible .entry store(.param .u64 p)\n{\n\tret;\n}\n"))
	require.NoError(t, err)
	t.Cleanup(func() { b.ModuleUnload(m) })
	f, err := b.ModuleGetFunction(m, "store")
	require.NoError(t, err)
	p := alloc4K(t, b)
	require.NoError(t, b.LaunchKernel(f, [3]uint32{4, 1, 1}, [3]uint32{256, 1, 1}, 0, ss[0], args(unsafe.Pointer(&p))))
	require.NoError(t, b.LaunchKernel(f, [3]uint32{4, 1, 1}, [3]uint32{256, 1, 1}, 0, ss[1], args(unsafe.Pointer(&p))))
	require.NoError(t, b.CtxSynchronize())
	require.Len(t, *got, 1, "one report for the pair, over the whole range")
	h := (*got)[0]
	assert.Equal(t, uintptr(4096), h.Size)
	assert.Equal(t, "kernel store", h.Current.Op)
	assert.Equal(t, "write", h.Previous.Kind)
	require.NotNil(t, h.Current.Kernel)
	assert.Zero(t, h.Current.Kernel.PTXLine)
}

func TestRaceFreeAsync(t *testing.T) {
	b, got := raceBackend(t)
	ss := newStreams(t, b, backend.StreamNonBlocking, 2)
	p, err := b.MemAllocAsync(4096, ss[0])
	require.NoError(t, err)
	require.NoError(t, b.MemsetD8Async(p, 0, 4096, ss[0]))
	require.NoError(t, b.StreamSynchronize(ss[0]))
	host := make([]byte, 16)
	// Read on another stream, then freed on the first with nothing between.
	require.NoError(t, b.MemcpyDtoHAsync(unsafe.Pointer(&host[0]), p, 16, ss[1]))
	require.NoError(t, b.MemFreeAsync(p, ss[0]))
	require.NoError(t, b.CtxSynchronize())
	require.Len(t, *got, 1)
	h := (*got)[0]
	assert.Equal(t, "free", h.Current.Kind)
	assert.Equal(t, "cuMemFreeAsync", h.Current.Op)
	assert.Equal(t, "read", h.Previous.Kind)
}

func TestRaceOffByDefault(t *testing.T) {
	b := bound(t)
	ss := newStreams(t, b, backend.StreamNonBlocking, 2)
	p := alloc4K(t, b)
	host := make([]byte, 16)
	require.NoError(t, b.MemsetD8Async(p, 1, 4096, ss[0]))
	require.NoError(t, b.MemcpyDtoHAsync(unsafe.Pointer(&host[0]), p, 16, ss[1]))
	require.NoError(t, b.CtxSynchronize())
	assert.Nil(t, b.Fake().Hazards())
	assert.False(t, b.DetectsRaces())
	assert.NoError(t, b.Fake().DeclareOrder(ss[0], ss[1]), "a no-op when off")
}

func TestRaceDeclareOrderRefusesUnknownStreams(t *testing.T) {
	b, _ := raceBackend(t)
	s := newStreams(t, b, 0, 1)[0]
	err := b.Fake().DeclareOrder(0xdead00, s)
	require.Error(t, err)
	assert.True(t, strings.Contains(err.Error(), "0xdead00"), err.Error())
	assert.Error(t, b.Fake().DeclareOrder(s, 0xbeef00))
}

func TestRaceParallelWorkers(t *testing.T) {
	b, got := raceBackend(t, Workers(4))
	ss := newStreams(t, b, backend.StreamNonBlocking, 2)
	m, err := b.ModuleLoadData([]byte(fillGridPTX))
	require.NoError(t, err)
	t.Cleanup(func() { b.ModuleUnload(m) })
	f, err := b.ModuleGetFunction(m, "fill")
	require.NoError(t, err)
	p := alloc4K(t, b)
	v := uint32(3)
	grid, block := [3]uint32{8, 1, 1}, [3]uint32{64, 1, 1}
	// The blocks of one launch run at once and report concurrently (their
	// bytes are their own: the same bytes from parallel blocks would be a
	// data race in the fake itself, which go test -race reports).
	require.NoError(t, b.LaunchKernel(f, grid, block, 0, ss[0], args(unsafe.Pointer(&p), unsafe.Pointer(&v))))
	require.NoError(t, b.StreamSynchronize(ss[0]))
	assert.Empty(t, *got)
	require.NoError(t, b.LaunchKernel(f, grid, block, 0, ss[0], args(unsafe.Pointer(&p), unsafe.Pointer(&v))))
	require.NoError(t, b.LaunchKernel(f, grid, block, 0, ss[1], args(unsafe.Pointer(&p), unsafe.Pointer(&v))))
	require.NoError(t, b.CtxSynchronize())
	require.Len(t, *got, 1, "one report for the pair of launches")
	assert.NotZero(t, (*got)[0].Size)
	assert.LessOrEqual(t, (*got)[0].Size, uintptr(8*64*4), "within what both launches wrote")
	assert.Equal(t, "write", (*got)[0].Previous.Kind)
	assert.Equal(t, "write", (*got)[0].Current.Kind)
}

func TestRaceAtomicsDoNotRaceEachOther(t *testing.T) {
	const atomPTX = `
.version 7.8
.target sm_90
.address_size 64

.visible .entry count(
	.param .u64 count_param_0
)
{
	.reg .b32 	%r<2>;
	.reg .b64 	%rd<3>;

	ld.param.u64 	%rd1, [count_param_0];
	cvta.to.global.u64 	%rd2, %rd1;
	atom.global.add.u32 	%r1, [%rd2], 1;
	ret;
}
`
	b, got := raceBackend(t)
	ss := newStreams(t, b, backend.StreamNonBlocking, 2)
	m, err := b.ModuleLoadData([]byte(atomPTX))
	require.NoError(t, err)
	t.Cleanup(func() { b.ModuleUnload(m) })
	f, err := b.ModuleGetFunction(m, "count")
	require.NoError(t, err)
	p := alloc4K(t, b)
	require.NoError(t, b.MemsetD32(p, 0, 1))
	for _, s := range ss {
		require.NoError(t, b.LaunchKernel(f, [3]uint32{1, 1, 1}, [3]uint32{32, 1, 1}, 0, s, args(unsafe.Pointer(&p))))
	}
	require.NoError(t, b.CtxSynchronize())
	assert.Empty(t, *got, "atomics on two streams")
	assert.Equal(t, []byte{64, 0, 0, 0}, readDevice(t, b, p, 4))
	// A plain read on a third stream, unordered with the atomics, races.
	host := make([]byte, 4)
	s3 := newStreams(t, b, backend.StreamNonBlocking, 1)[0]
	require.NoError(t, b.LaunchKernel(f, [3]uint32{1, 1, 1}, [3]uint32{1, 1, 1}, 0, ss[0], args(unsafe.Pointer(&p))))
	require.NoError(t, b.MemcpyDtoHAsync(unsafe.Pointer(&host[0]), p, 4, s3))
	require.NoError(t, b.CtxSynchronize())
	require.Len(t, *got, 1)
	assert.ElementsMatch(t, []string{"atomic", "read"}, []string{(*got)[0].Current.Kind, (*got)[0].Previous.Kind})
}

func TestRaceGraphNodesOrderedByEdgesOnly(t *testing.T) {
	for _, tc := range []struct {
		name  string
		edge  bool
		child bool
		race  bool
	}{{"no edge", false, false, true}, {"edge", true, false, false}, {"edge through a child graph", true, true, false}, {"child graph, no edge", false, true, true}} {
		t.Run(tc.name, func(t *testing.T) {
			b, got := raceBackend(t)
			ctx, err := b.CtxGetCurrent()
			require.NoError(t, err)
			s := newStreams(t, b, backend.StreamNonBlocking, 1)[0]
			p := alloc4K(t, b)
			g, err := b.GraphCreate(0)
			require.NoError(t, err)
			t.Cleanup(func() { b.GraphDestroy(g) })
			set := &backend.MemsetNodeParams{Dst: p, Value: 1, ElementSize: 4, Width: 16, Height: 1}
			into := g
			if tc.child {
				into, err = b.GraphCreate(0)
				require.NoError(t, err)
				t.Cleanup(func() { b.GraphDestroy(into) })
			}
			first, err := b.GraphAddMemsetNode(into, nil, set, ctx)
			require.NoError(t, err)
			var deps []uintptr
			if tc.child {
				c, err := b.GraphAddChildGraphNode(g, nil, into)
				require.NoError(t, err)
				first = c
			}
			if tc.edge {
				deps = []uintptr{first}
			}
			_, err = b.GraphAddMemsetNode(g, deps, set, ctx)
			require.NoError(t, err)
			x, err := b.GraphInstantiate(g, 0)
			require.NoError(t, err)
			t.Cleanup(func() { b.GraphExecDestroy(x) })
			require.NoError(t, b.GraphLaunch(x, s))
			require.NoError(t, b.GraphLaunch(x, s)) // the next launch follows in stream order
			require.NoError(t, b.StreamSynchronize(s))
			if tc.race {
				require.Len(t, *got, 2, "one per launch")
				assert.Equal(t, "memset", (*got)[0].Current.Op)
				assert.Equal(t, uintptr(64), (*got)[0].Size)
			} else {
				assert.Empty(t, *got)
			}
		})
	}
}

// TestRaceSharedMemoryReport: the PTX interpreter's in-kernel shared
// memory races become hazards of the launch that ran them.
func TestRaceSharedMemoryReport(t *testing.T) {
	b, got := raceBackend(t)
	s := newStreams(t, b, 0, 1)[0]
	it := &item{run: func() error {
		rec := b.race.Recorder("reduce")
		require.NotNil(t, rec)
		rec.SharedRace([3]uint32{1, 0, 0}, 0x40,
			race.SharedSide{Thread: [3]uint32{3, 0, 0}, Kind: race.Write, Line: 20, Instr: "st.shared.f32 [%r4], %f1;", File: "k.cu", FileLine: 7},
			race.SharedSide{Thread: [3]uint32{5, 0, 0}, Kind: race.Read, Line: 22, Instr: "ld.shared.f32 %f2, [%r6];"})
		return nil
	}}
	require.NoError(t, b.enqueue(s, it, nil))
	require.NoError(t, b.StreamSynchronize(s))
	require.Len(t, *got, 1)
	h := (*got)[0]
	assert.Equal(t, SharedMemoryRace, h.Kind)
	assert.Equal(t, uintptr(0x40), h.Addr)
	assert.Equal(t, "kernel reduce", h.Current.Op)
	assert.Equal(t, [3]uint32{5, 0, 0}, h.Current.Kernel.Thread)
	assert.Equal(t, "k.cu:7", h.Previous.Kernel.Source)
	str := h.String()
	assert.Contains(t, str, "SHARED MEMORY RACE")
	assert.Contains(t, str, "shared memory at offset 0x40")
	assert.Contains(t, str, "k.cu:7; block (1,0,0) thread (3,0,0)")
}

func TestRaceReportFunctionThatPanics(t *testing.T) {
	b := bound(t, DetectRaces(func(Hazard) { panic("boom") }))
	ss := newStreams(t, b, backend.StreamNonBlocking, 2)
	p := alloc4K(t, b)
	host := make([]byte, 16)
	require.NoError(t, b.MemsetD8Async(p, 1, 4096, ss[0]))
	require.NoError(t, b.MemcpyDtoHAsync(unsafe.Pointer(&host[0]), p, 16, ss[1]))
	require.NoError(t, b.StreamSynchronize(ss[1]), "the work itself succeeds")
	require.NoError(t, b.CtxSynchronize())
	// The read ran first: of unwritten bytes, racing with the memset; one
	// report says both.
	hs := b.Fake().Hazards()
	require.Len(t, hs, 1, "kept all the same")
	assert.True(t, hs[0].Unwritten)
}

// A report function that calls into the fake never deadlocks: a call that
// would wait for work (the work that found the hazard waits for the
// report) returns ErrNotPermitted, as from a host callback; the others
// work.
func TestRaceReportFunctionCallsTheFake(t *testing.T) {
	var b *fakeBackend
	var ss []uintptr
	var p, ctx, q uintptr
	errs := map[string]error{}
	calls := 0
	b = bound(t, DetectRaces(func(Hazard) {
		calls++
		if calls > 1 {
			return
		}
		host := make([]byte, 4)
		errs["CtxPushCurrent"] = b.CtxPushCurrent(ctx) // the report runs on a thread of its own
		defer b.CtxPopCurrent()
		ev, err := b.EventCreate(0)
		errs["EventCreate"] = err
		errs["EventRecord"] = b.EventRecord(ev, ss[0])
		errs["StreamSynchronize"] = b.StreamSynchronize(ss[0])
		errs["StreamQuery"] = b.StreamQuery(ss[0])
		errs["EventSynchronize"] = b.EventSynchronize(ev)
		errs["MemcpyDtoH"] = b.MemcpyDtoH(unsafe.Pointer(&host[0]), p, 4)
		errs["MemsetD8"] = b.MemsetD8(p, 0, 4)
		errs["MemsetD8Async"] = b.MemsetD8Async(p, 0, 4, ss[0])
		errs["DeclareOrder"] = b.Fake().DeclareOrder(ss[0], ss[1])
		errs["Hazards"] = nil
		_ = b.Fake().Hazards()
		q, err = b.MemAlloc(64)
		errs["MemAlloc"] = err
		errs["MemFree"] = b.MemFree(q)
		errs["CtxSynchronize"] = b.CtxSynchronize()
		errs["EventDestroy"] = b.EventDestroy(ev)
	}))
	ctx, err := b.CtxGetCurrent()
	require.NoError(t, err)
	ss = newStreams(t, b, backend.StreamNonBlocking, 2)
	p = alloc4K(t, b)
	host := make([]byte, 16)
	require.NoError(t, b.MemsetD8Async(p, 1, 4096, ss[0]))
	require.NoError(t, b.MemcpyDtoHAsync(unsafe.Pointer(&host[0]), p, 16, ss[1]))
	done := make(chan error, 1)
	go func() { done <- b.StreamSynchronize(ss[1]) }()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(20 * time.Second):
		t.Fatal("a report function that calls into the fake deadlocked")
	}
	require.NoError(t, b.CtxSynchronize())
	require.NotZero(t, calls)
	for _, name := range []string{"StreamSynchronize", "StreamQuery", "EventSynchronize", "MemcpyDtoH", "MemsetD8", "MemFree", "CtxSynchronize"} {
		assert.ErrorIs(t, errs[name], driver.ErrNotPermitted, name)
	}
	for _, name := range []string{"EventCreate", "EventRecord", "MemsetD8Async", "DeclareOrder", "MemAlloc", "EventDestroy", "CtxPushCurrent"} {
		assert.NoError(t, errs[name], name)
	}
	assert.NoError(t, b.MemFree(q), "the free refused in the report, retried")
}
