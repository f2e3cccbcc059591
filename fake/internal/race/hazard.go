package race

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
	// Unwritten, for a Race: the read of the two also found bytes that
	// nothing had written yet, because it ran before the write it races
	// with. That read is not reported again as an UninitializedRead: it
	// is this race's symptom.
	Unwritten bool
}

// Access is one side of a Hazard: a piece of work enqueued on a stream, and
// what it did to the bytes.
type Access struct {
	// Op is the work: "kernel scale", "memcpy HtoD", "memcpy DtoH",
	// "memcpy DtoD", "memcpy 2D/3D", "memset", "cuMemFreeAsync", a fake
	// library's entry point ("cublasSgemm_v2") or an NCCL collective
	// ("ncclAllReduce").
	Op string
	// Kind is "read", "write", "atomic", "free" or "allocation" (a
	// stream-ordered cuMemAllocAsync, which every use must follow).
	Kind string
	// Stream names the stream the work was enqueued on ("stream 0x5a0040",
	// `stream "loader" (0x5a0040)` for a stream made with a name, "the
	// legacy default stream (NULL) of context 0x5a0000").
	Stream string
	// Item is the work's number: the order in which the backend's work
	// was enqueued, counting from 1.
	Item uint64
	// Stack is the Go call stack that enqueued the work, innermost first,
	// without the library's own frames (github.com/nocgo/cuda's packages,
	// other than their tests and the conformance suite): its first frame
	// is the user's call.
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

func newHazard(m Memory, addr, size uintptr, prev, cur *access) Hazard {
	h := Hazard{Kind: Race, Addr: addr, Size: size, Alloc: m.Base, AllocSize: m.Size, Current: cur.public()}
	if prev == nil {
		h.Kind = UninitializedRead
	} else {
		h.Previous = prev.public()
	}
	return h
}

func (a *access) public() Access {
	return Access{Op: a.what, Kind: a.kind.String(), Stream: a.op.stream, Item: a.op.seq, Stack: frames(a.op.stack), Kernel: a.site}
}

// frames resolves a stack, leaving out the runtime's frames and the
// library's own (see libraryFrame); if that leaves nothing (work the
// library enqueued on its own), only the fake's own are left out.
func frames(pcs []uintptr) []runtime.Frame {
	var all, user []runtime.Frame
	fs := runtime.CallersFrames(pcs)
	for {
		f, more := fs.Next()
		if f.Function != "" && !strings.HasPrefix(f.Function, "runtime.") {
			if !ownFrame(f, "fake") {
				all = append(all, f)
			}
			if !libraryFrame(f) {
				user = append(user, f)
			}
		}
		if !more {
			break
		}
	}
	if len(user) > 0 {
		return user
	}
	return all
}

// modulePath is the library's module.
const modulePath = "github.com/nocgo/cuda/"

// libraryPackages are the library's own folders: a frame of their code
// (not of their tests) is the library's, not its user's. The conformance
// suite, the commands and the benchmarks use the library as a user does.
var libraryPackages = []string{"cublas", "cudatest", "cufft", "curand", "driver", "fake", "gpu", "graph", "internal", "loader", "memory", "module", "nccl", "stream", "worker"}

func libraryFrame(f runtime.Frame) bool {
	for _, p := range libraryPackages {
		if ownFrame(f, p) {
			return true
		}
	}
	return false
}

// ownFrame reports whether f runs code (not a test) of the module's folder
// dir or a folder under it.
func ownFrame(f runtime.Frame, dir string) bool {
	rest, ok := strings.CutPrefix(f.Function, modulePath+dir)
	if !ok || strings.HasSuffix(f.File, "_test.go") {
		return false
	}
	return strings.HasPrefix(rest, ".") || strings.HasPrefix(rest, "/")
}

// String writes the hazard as Go's race detector writes a data race, with
// a line on how to order the two accesses.
func (h Hazard) String() string {
	var sb strings.Builder
	sb.WriteString("==================\nWARNING: ")
	sb.WriteString(h.Kind.String())
	sb.WriteString(" (nocgo/cuda/fake)\n")
	writeAccess(&sb, "", h.Current, h)
	switch h.Kind {
	case UninitializedRead:
		fmt.Fprintf(&sb, "\nNothing wrote these bytes since they were allocated: the fake holds 0xA5 there, a GPU whatever was there before.\n")
	case SharedMemoryRace:
		sb.WriteString("\n")
		writeAccess(&sb, "Previous ", h.Previous, h)
		sb.WriteString("\nTwo threads of one block, with no barrier (__syncthreads) or warp collective (__syncwarp) between them.\n")
	case GlobalMemoryRace:
		sb.WriteString("\n")
		writeAccess(&sb, "Previous ", h.Previous, h)
		sb.WriteString("\nTwo threads of one launch, not both atomic (of a scope that holds both), with nothing ordering them: no barrier\n" +
			"of their block, no warp collective of their warp, no grid.sync, and no release (__threadfence() or a .release\n" +
			"store before a write) observed by a read of the other thread's block.\n")
		if h.Unwritten {
			sb.WriteString("The read ran before the write and found bytes nothing had written yet (the fake holds 0xA5 there).\n")
		}
	default:
		sb.WriteString("\n")
		writeAccess(&sb, "Previous ", h.Previous, h)
		sb.WriteString("\nNothing orders the two: not stream order, an event record and wait, a synchronize the host observed,\n" +
			"the legacy default stream's implicit synchronisation, nor a declared order (fake.Fake.DeclareOrder).\n")
		if h.Unwritten {
			sb.WriteString("The read ran before the write and found bytes nothing had written yet (the fake holds 0xA5 there).\n")
		}
		sb.WriteString(h.Fix())
		sb.WriteString("\n")
	}
	sb.WriteString("==================")
	return sb.String()
}

// Fix says how to order the two accesses of a Race: for work on two
// streams, the event record and wait (or Stream.WaitStream) that puts the
// earlier one's stream before the later one's; for two nodes of one graph
// launch, an edge between them. It is "" for the other kinds.
func (h Hazard) Fix() string {
	if h.Kind != Race {
		return ""
	}
	first, then := h.Previous, h.Current
	if first.Item > then.Item { // the one enqueued first is meant to come first
		first, then = then, first
	}
	switch {
	case first.Item == then.Item:
		return "To fix: add a dependency between the two nodes of the graph (an edge from the node doing " + first.Op + " to the one doing " + then.Op + ")."
	case first.Kind == Free.String():
		return fmt.Sprintf("To fix: work #%d uses memory that work #%d, enqueued before it, frees: enqueue the free after the use, and order it\n"+
			"after the use (an event recorded on %s after work #%d and waited for on %s; or Stream.WaitStream).",
			then.Item, first.Item, then.Stream, then.Item, first.Stream)
	case first.Stream == then.Stream:
		return "To fix: order the two (they are on one stream, yet unordered: a declared order or a graph's nodes)."
	}
	return fmt.Sprintf("To fix: order work #%d before work #%d: record an event on %s after work #%d and wait for it on %s\n"+
		"before work #%d (stream.Event.Record, then Stream.Wait; or Stream.WaitStream), or synchronize %s before enqueueing work #%d.",
		first.Item, then.Item, first.Stream, first.Item, then.Stream, then.Item, first.Stream, then.Item)
}

func writeAccess(sb *strings.Builder, prefix string, a Access, h Hazard) {
	kind := a.Kind
	if prefix == "" && kind != "" {
		kind = strings.ToUpper(kind[:1]) + kind[1:]
	}
	at := ""
	if len(a.Stack) > 0 {
		at = fmt.Sprintf(" at %s:%d", a.Stack[0].File, a.Stack[0].Line)
	}
	if h.Kind == SharedMemoryRace {
		fmt.Fprintf(sb, "%s%s of shared memory at offset %#x by %s on %s (work #%d), enqueued%s:\n",
			prefix, kind, h.Addr, a.Op, a.Stream, a.Item, at)
	} else {
		fmt.Fprintf(sb, "%s%s of %d bytes at %#x (allocation %#x, %d bytes) by %s on %s (work #%d), enqueued%s:\n",
			prefix, kind, h.Size, h.Addr, h.Alloc, h.AllocSize, a.Op, a.Stream, a.Item, at)
	}
	if a.Kernel != nil {
		fmt.Fprintf(sb, "  [%s]\n", a.Kernel)
	}
	for _, f := range a.Stack {
		fmt.Fprintf(sb, "  %s()\n      %s:%d\n", f.Function, f.File, f.Line)
	}
}
