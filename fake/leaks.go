package fake

import (
	"fmt"
	"sort"
)

// Leaks lists every object still alive in the backend that its user is
// responsible for releasing, one line each, in a stable order: created
// contexts, retained primary contexts (with their reference count),
// streams, events, modules, device allocations (with size and device),
// pinned host memory, IPC mappings not closed, NVRTC programs, CUDA graphs
// and graph execs. Memory mapped from another backend's IPC handle is never
// counted as this backend's to free; the mapping is listed until
// IPCCloseMemHandle.
// A test that closes everything it made expects an empty list.
func (b *Backend) Leaks() []string {
	b.mu.RLock()
	defer b.mu.RUnlock()
	type leak struct {
		rank int
		key  uintptr
		line string
	}
	var ls []leak
	add := func(rank int, key uintptr, format string, args ...any) {
		ls = append(ls, leak{rank, key, fmt.Sprintf(format, args...)})
	}
	for _, c := range b.ctxs {
		switch {
		case c.primary && c.refs > 0:
			add(0, c.h, "primary context %#x on device %d: %d references retained", c.h, c.dev.ordinal, c.refs)
		case !c.primary && !c.dead:
			add(1, c.h, "context %#x on device %d: not destroyed", c.h, c.dev.ordinal)
		}
	}
	for _, s := range b.streams {
		add(2, s.h, "stream %#x in context %#x: not destroyed", s.h, s.ctx.h)
	}
	for _, e := range b.events {
		add(3, e.h, "event %#x in context %#x: not destroyed", e.h, e.ctx.h)
	}
	for _, m := range b.modules {
		add(4, m.h, "module %#x in context %#x: not unloaded", m.h, m.ctx.h)
	}
	for _, a := range b.mem {
		switch a.kind {
		case deviceMem:
			kind := "device memory"
			if a.async {
				kind = "stream-ordered device memory"
			}
			add(5, a.base, "%s %#x: %d bytes on device %d not freed", kind, a.base, a.size, a.dev.ordinal)
		case hostMem:
			add(6, a.base, "pinned host memory %#x: %d bytes in context %#x not freed", a.base, a.size, a.ctx.h)
		case ipcMapping:
			add(7, a.base, "IPC mapping %#x: %d bytes in context %#x not closed", a.base, a.size, a.ctx.h)
		}
	}
	for h, p := range b.progs {
		add(8, h, "NVRTC program %#x (%s): not destroyed", h, p.name)
	}
	b.graphLeaksLocked(add)
	sort.Slice(ls, func(i, j int) bool {
		if ls[i].rank != ls[j].rank {
			return ls[i].rank < ls[j].rank
		}
		return ls[i].key < ls[j].key
	})
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = l.line
	}
	return out
}
