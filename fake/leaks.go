package fake

import (
	"sort"

	"github.com/nocgo/cuda/driver/backend"
)

// Leak is one object still alive in a Backend that its user was to
// release: its kind, handle, context, device and size (see backend.Leak;
// String gives it as one line).
type Leak = backend.Leak

// Leaks lists every object still alive in the backend that its user is
// responsible for releasing, in a stable order: created contexts, retained
// primary contexts (with their reference count), streams, events, modules,
// device allocations (with size and device), pinned host memory, IPC
// mappings not closed, NVRTC programs, CUDA graphs and graph execs,
// memory pools made by cuMemPoolCreate, and virtual memory: reserved
// address ranges not freed, mappings not unmapped and allocation handles
// not released (fake/internal/vmm). Each names, in Site, the Go call site
// that made it: the first frame outside this library and Go's standard library
// ("foo_test.go:42 (TestX)"), captured as program counters at creation and
// resolved here. Memory mapped from another
// backend's IPC handle is never counted as this backend's to free; the
// mapping is listed until IPCCloseMemHandle. A test that closes everything
// it made expects an empty list (cudatest.Fake checks it for a test).
func (b *fakeBackend) Leaks() []Leak {
	progs := b.compiler.Leaks() // the rooms', asked before the core's lock
	ranges, mappings, handles := b.vmm.Leaks()
	poolLeaks := b.pools.Leaks()
	graphLeaks, execLeaks := b.graphRoom.GraphLeaks()
	b.mu.RLock()
	defer b.mu.RUnlock()
	type ranked struct {
		rank int
		Leak
	}
	var ls []ranked
	add := func(rank int, l Leak) { ls = append(ls, ranked{rank, l}) }
	for _, c := range b.ctxs {
		switch {
		case c.primary && c.refs > 0:
			add(0, Leak{Kind: backend.LeakPrimaryContext, Handle: c.h, Context: c.h, Device: c.dev.ordinal, Refs: c.refs, Site: c.site.String()})
		case !c.primary && !c.dead:
			add(1, Leak{Kind: backend.LeakContext, Handle: c.h, Context: c.h, Device: c.dev.ordinal, Site: c.site.String()})
		}
	}
	for _, s := range b.streams {
		add(2, Leak{Kind: backend.LeakStream, Handle: s.h, Context: s.ctx.h, Device: s.ctx.dev.ordinal, Site: s.site.String()})
	}
	for _, e := range b.events {
		add(3, Leak{Kind: backend.LeakEvent, Handle: e.h, Context: e.ctx.h, Device: e.ctx.dev.ordinal, Site: e.site.String()})
	}
	for _, m := range b.modules {
		add(4, Leak{Kind: backend.LeakModule, Handle: m.h, Context: m.ctx.h, Device: m.ctx.dev.ordinal, Site: m.site.String()})
	}
	for _, a := range b.mem {
		l := Leak{Handle: a.base, Size: a.size, Site: a.site.String()}
		if a.ctx != nil {
			l.Context = a.ctx.h
		}
		switch a.kind {
		case deviceMem:
			l.Kind, l.Device = backend.LeakDeviceMemory, a.dev.ordinal
			if a.async {
				l.Kind = backend.LeakAsyncMemory
			}
			add(5, l)
		case hostMem:
			l.Kind = backend.LeakHostMemory
			add(6, l)
		case ipcMapping:
			l.Kind = backend.LeakIPCMapping
			add(7, l)
		}
	}
	for _, p := range progs {
		add(8, Leak{Kind: backend.LeakProgram, Handle: p.Handle, Detail: p.Name, Site: p.Site})
	}
	for _, l := range graphLeaks {
		add(9, l)
	}
	for _, l := range execLeaks {
		add(10, l)
	}
	for rank, ls := range [][]Leak{ranges, mappings, handles} { // virtual memory, after the pools
		for _, l := range ls {
			add(12+rank, l)
		}
	}
	for _, l := range poolLeaks {
		add(11, l)
	}
	sort.Slice(ls, func(i, j int) bool {
		if ls[i].rank != ls[j].rank {
			return ls[i].rank < ls[j].rank
		}
		return ls[i].Handle < ls[j].Handle
	})
	out := make([]Leak, len(ls))
	for i, l := range ls {
		out[i] = l.Leak
	}
	return out
}
