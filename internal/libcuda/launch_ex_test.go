//go:build linux && (amd64 || arm64)

package libcuda

import (
	"encoding/binary"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"

	"github.com/nocgo/cuda/driver/backend"
)

// The bytes the driver reads: the attribute list as cuda.h lays it out.
func TestLaunchBlockBytes(t *testing.T) {
	b := newLaunchBlock(&backend.LaunchConfig{
		Grid: [3]uint32{8, 2, 1}, Block: [3]uint32{128, 1, 1}, SharedMem: 1024, Stream: 0x1234,
		Cluster: [3]uint32{2, 1, 3}, Cooperative: true,
	})
	cfg := unsafe.Slice((*byte)(unsafe.Pointer(&b.cfg)), 56)
	le := binary.LittleEndian
	assert.Equal(t, []uint32{8, 2, 1, 128, 1, 1, 1024}, []uint32{
		le.Uint32(cfg[0:]), le.Uint32(cfg[4:]), le.Uint32(cfg[8:]),
		le.Uint32(cfg[12:]), le.Uint32(cfg[16:]), le.Uint32(cfg[20:]), le.Uint32(cfg[24:])})
	assert.Equal(t, uint64(0x1234), le.Uint64(cfg[32:]), "hStream")
	assert.Equal(t, uint64(uintptr(unsafe.Pointer(&b.attrs[0]))), le.Uint64(cfg[40:]), "attrs")
	assert.Equal(t, uint32(2), le.Uint32(cfg[48:]), "numAttrs")

	attrs := unsafe.Slice((*byte)(unsafe.Pointer(&b.attrs[0])), 2*72)
	assert.Equal(t, uint32(2), le.Uint32(attrs[0:]), "CU_LAUNCH_ATTRIBUTE_COOPERATIVE")
	assert.Equal(t, int32(1), int32(le.Uint32(attrs[8:])), "value.cooperative")
	assert.Equal(t, uint32(4), le.Uint32(attrs[72:]), "CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION")
	assert.Equal(t, []uint32{2, 1, 3}, []uint32{le.Uint32(attrs[80:]), le.Uint32(attrs[84:]), le.Uint32(attrs[88:])}, "value.clusterDim")

	plain := newLaunchBlock(&backend.LaunchConfig{Grid: [3]uint32{1, 1, 1}, Block: [3]uint32{1, 1, 1}})
	assert.Nil(t, plain.cfg.attrs, "no attributes: attrs NULL")
	assert.Zero(t, plain.cfg.numAttrs)
}

// The log options: the sizes go in as values and come back as the bytes
// used; the text stops at the first NUL.
func TestJITLogs(t *testing.T) {
	j := newJITLogs(true)
	defer j.unpin()
	assert.Equal(t, []int32{3, 4, 5, 6, 12}, j.opts)
	assert.Equal(t, uintptr(jitLogSize), j.vals[1])
	assert.Equal(t, uintptr(1), j.vals[4], "CU_JIT_LOG_VERBOSE = 1")
	copy(j.err, "ptxas error: bad\n\x00junk")
	j.vals[3] = 18
	copy(j.info, "info")
	j.vals[1] = 0xffffffff00000004 // only the low 32 bits are the unsigned int
	assert.Equal(t, backend.JITLog{Info: "info", Error: "ptxas error: bad"}, j.log())
}
