package fake

import (
	"fmt"
	"runtime"
	"strings"
)

// HazardKind says what the race detector found.
type HazardKind uint8

// The kinds of hazard.
const (
	// Race: two accesses to the same device bytes, at least one a write
	// (or a free), that nothing orders (see DetectRaces).
	Race HazardKind = iota + 1
	// UninitializedRead: a kernel, or a copy to the host, read device
	// bytes that nothing wrote since they were allocated (the fake fills
	// them with 0xA5; a GPU leaves whatever was there).
	UninitializedRead
	// SharedMemoryRace: two threads of one block touched the same shared
	// memory bytes, at least one writing, with no barrier between them
	// (reported by the PTX interpreter where it checks this).
	SharedMemoryRace
	// GlobalMemoryRace: two threads of one launch touched the same
	// device bytes, at least one writing, not both atomic, with nothing
	// ordering them by CUDA's memory model (reported by the PTX
	// interpreter: see DetectRaces).
	GlobalMemoryRace
)

// String names the kind as a report's title does.
func (k HazardKind) String() string {
	switch k {
	case Race:
		return "DATA RACE between CUDA streams"
	case UninitializedRead:
		return "READ OF UNINITIALISED DEVICE MEMORY"
	case SharedMemoryRace:
		return "SHARED MEMORY RACE inside a kernel"
	case GlobalMemoryRace:
		return "GLOBAL MEMORY RACE inside a kernel"
	}
	return "HAZARD"
}

// Hazard is one report of the race detector: the bytes, and the two
// accesses (Current, the one that found the hazard, and Previous, the
// earlier one it is not ordered with; Previous is zero for an
// UninitializedRead). String writes it as Go's race detector writes a data
// race.
type Hazard struct {
	Kind HazardKind
	// Addr and Size are the device bytes both accesses touch (for an
	// UninitializedRead, the bytes read and never written), inside the
	// allocation at Alloc of AllocSize bytes. For a SharedMemoryRace, Addr
	// is the first byte's offset in the block's shared memory, Size 1, and
	// Alloc and AllocSize 0; both accesses are of the same launch, and
	// their Kernel sites name the block and the two threads.
	Addr, Size       uintptr
	Alloc, AllocSize uintptr
	Current          Access
	Previous         Access
}

// Access is one side of a Hazard: a piece of work enqueued on a stream, and
// what it did to the bytes.
type Access struct {
	// Op is the work: "kernel scale", "memcpy HtoD", "memcpy DtoH",
	// "memcpy DtoD", "memcpy 2D/3D", "memset", "cuMemFreeAsync", a fake
	// library's entry point ("cublasSgemm_v2") or an NCCL collective
	// ("ncclAllReduce").
	Op string
	// Kind is "read", "write", "atomic" or "free".
	Kind string
	// Stream names the stream the work was enqueued on ("stream 0x5a0040",
	// "the legacy default stream (NULL) of context 0x5a0000").
	Stream string
	// Item is the work's number: the order in which the backend's work
	// was enqueued, counting from 1.
	Item uint64
	// Stack is the Go call stack that enqueued the work, innermost first,
	// without the fake's own frames.
	Stack []runtime.Frame
	// Kernel is where a kernel made the access (nil for other work).
	Kernel *KernelSite
}

// KernelSite is where in a kernel an access was made: for an interpreted
// kernel, the PTX line and instruction; the block and thread (the first
// of the accesses a report groups).
type KernelSite struct {
	PTXLine int    // 0 for a Go body
	Instr   string // the PTX instruction; "" for a Go body
	Source  string // the .cu file and line, where the PTX has line info and the interpreter gives it; else ""
	Block   [3]uint32
	Thread  [3]uint32
}

// String gives the site as a report line: the PTX line and instruction
// (and the .cu line where known), block and thread; for a Go body, its
// block and thread only.
func (k *KernelSite) String() string {
	var sb strings.Builder
	if k.PTXLine > 0 {
		fmt.Fprintf(&sb, "PTX line %d: %s; ", k.PTXLine, k.Instr)
	}
	if k.Source != "" {
		fmt.Fprintf(&sb, "%s; ", k.Source)
	}
	fmt.Fprintf(&sb, "block (%d,%d,%d) thread (%d,%d,%d)", k.Block[0], k.Block[1], k.Block[2], k.Thread[0], k.Thread[1], k.Thread[2])
	return sb.String()
}

func newHazard(a *alloc, addr, size uintptr, prev, cur *raceAccess) Hazard {
	h := Hazard{Kind: Race, Addr: addr, Size: size, Alloc: a.base, AllocSize: a.size, Current: cur.public()}
	if prev == nil {
		h.Kind = UninitializedRead
	} else {
		h.Previous = prev.public()
	}
	return h
}

func (a *raceAccess) public() Access {
	return Access{Op: a.what, Kind: a.kind.String(), Stream: a.op.stream, Item: a.op.seq, Stack: frames(a.op.stack), Kernel: a.site}
}

// frames resolves a stack, leaving out the fake's own frames and the
// runtime's.
func frames(pcs []uintptr) []runtime.Frame {
	var out []runtime.Frame
	fs := runtime.CallersFrames(pcs)
	for {
		f, more := fs.Next()
		own := strings.HasPrefix(f.Function, "github.com/nocgo/cuda/fake.") && !strings.HasSuffix(f.File, "_test.go")
		if !own && !strings.HasPrefix(f.Function, "runtime.") && f.Function != "" {
			out = append(out, f)
		}
		if !more {
			return out
		}
	}
}

// String writes the hazard as Go's race detector writes a data race.
func (h Hazard) String() string {
	var sb strings.Builder
	sb.WriteString("==================\nWARNING: ")
	sb.WriteString(h.Kind.String())
	sb.WriteString(" (nocgo/cuda/fake)\n")
	writeAccess(&sb, "", h.Current, h)
	if h.Kind == UninitializedRead {
		fmt.Fprintf(&sb, "\nNothing wrote these bytes since they were allocated: the fake holds 0xA5 there, a GPU whatever was there before.\n")
	} else {
		sb.WriteString("\n")
		writeAccess(&sb, "Previous ", h.Previous, h)
		switch h.Kind {
		case SharedMemoryRace:
			sb.WriteString("\nTwo threads of one block, with no barrier (__syncthreads) or warp collective (__syncwarp) between them.\n")
		case GlobalMemoryRace:
			sb.WriteString("\nTwo threads of one launch, not both atomic (of a scope that holds both), with nothing ordering them: no barrier\n" +
				"of their block, no warp collective of their warp, no grid.sync, and no release (__threadfence() or a .release\n" +
				"store before a write) observed by a read of the other thread's block.\n")
		default:
			sb.WriteString("\nNothing orders the two: not stream order, an event record and wait, a synchronize the host observed,\n" +
				"the legacy default stream's implicit synchronisation, nor a declared order (fake.Fake.DeclareOrder).\n")
		}
	}
	sb.WriteString("==================")
	return sb.String()
}

func writeAccess(sb *strings.Builder, prefix string, a Access, h Hazard) {
	kind := a.Kind
	if prefix == "" && kind != "" {
		kind = strings.ToUpper(kind[:1]) + kind[1:]
	}
	if h.Kind == SharedMemoryRace {
		fmt.Fprintf(sb, "%s%s of shared memory at offset %#x by %s on %s (work #%d), enqueued at:\n",
			prefix, kind, h.Addr, a.Op, a.Stream, a.Item)
	} else {
		fmt.Fprintf(sb, "%s%s of %d bytes at %#x (allocation %#x, %d bytes) by %s on %s (work #%d), enqueued at:\n",
			prefix, kind, h.Size, h.Addr, h.Alloc, h.AllocSize, a.Op, a.Stream, a.Item)
	}
	if a.Kernel != nil {
		fmt.Fprintf(sb, "  [%s]\n", a.Kernel)
	}
	for _, f := range a.Stack {
		fmt.Fprintf(sb, "  %s()\n      %s:%d\n", f.Function, f.File, f.Line)
	}
}
