//go:build linux && (amd64 || arm64)

package libcuda

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
)

// TestGraphNodeStructLayouts pins the C layouts of the graph node kinds'
// parameters (cuda.h 13.0; see the comments beside the declarations in
// graph_nodes.go).
func TestGraphNodeStructLayouts(t *testing.T) {
	var h cHostNodeParams
	assert.Equal(t, uintptr(16), unsafe.Sizeof(h), "CUDA_HOST_NODE_PARAMS")
	assert.Equal(t, []uintptr{0, 8}, []uintptr{unsafe.Offsetof(h.fn), unsafe.Offsetof(h.userData)}, "CUDA_HOST_NODE_PARAMS offsets")

	var a cMemAllocNodeParams
	assert.Equal(t, uintptr(120), unsafe.Sizeof(a), "CUDA_MEM_ALLOC_NODE_PARAMS")
	assert.Equal(t, []uintptr{0, 88, 96, 104, 112}, []uintptr{
		unsafe.Offsetof(a.poolProps), unsafe.Offsetof(a.accessDescs), unsafe.Offsetof(a.accessDescCount),
		unsafe.Offsetof(a.bytesize), unsafe.Offsetof(a.dptr),
	}, "CUDA_MEM_ALLOC_NODE_PARAMS offsets")

	var n cGraphNodeParams
	assert.Equal(t, uintptr(256), unsafe.Sizeof(n), "CUgraphNodeParams")
	assert.Equal(t, []uintptr{0, 4, 16, 248}, []uintptr{
		unsafe.Offsetof(n.typ), unsafe.Offsetof(n.reserved0), unsafe.Offsetof(n.handle), unsafe.Offsetof(n.reserved2),
	}, "CUgraphNodeParams offsets")
	// CUDA_CONDITIONAL_NODE_PARAMS at the union's start (16): handle 0,
	// type 8, size 12, phGraph_out 16, ctx 24.
	assert.Equal(t, []uintptr{0, 8, 12, 16, 24}, []uintptr{
		unsafe.Offsetof(n.handle) - 16, unsafe.Offsetof(n.condType) - 16, unsafe.Offsetof(n.size) - 16,
		unsafe.Offsetof(n.phGraphOut) - 16, unsafe.Offsetof(n.ctx) - 16,
	}, "CUDA_CONDITIONAL_NODE_PARAMS offsets")
}
