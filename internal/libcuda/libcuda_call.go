//go:build linux && (amd64 || arm64)

package libcuda

import "sync"

// outs is scratch memory for the out parameters of calls made often enough
// that a heap allocation per call matters (cuCtxGetCurrent and
// cuCtxPopCurrent run in every Context.Bind). The driver writes into it
// during the call, so it must be heap memory that does not move; a local
// variable whose address reaches purego.SyscallN escapes to the heap
// anyway, one allocation per call. Pooled scratch costs none.
// outs is scratch for out-parameters: 64 bytes, more than any attribute
// value the driver writes (the largest, CU_POINTER_ATTRIBUTE_P2P_TOKENS, is
// 16 bytes).
type outs struct{ v [8]uint64 }

var outPool = sync.Pool{New: func() any { return new(outs) }}

// getOuts returns zeroed scratch; give it back with putOuts.
func getOuts() *outs {
	o := outPool.Get().(*outs)
	o.v = [8]uint64{}
	return o
}

func putOuts(o *outs) { outPool.Put(o) }

// cInt reports whether v fits a C int (32 bits), the type of device
// ordinals, priorities and attribute values.
func cInt(v int) bool { return v == int(int32(v)) }
