package ptxexec

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReservedSharedMemory: the %reserved_smem_offset registers name 1 KiB
// past the kernel's own shared memory (one .u32 in snippet), writable and
// zeroed per block, which %total_smem_size leaves out; cooperative groups
// (CUDA 12 and later) keep a multi-warp tile's barriers at
// %reserved_smem_offset_1.
func TestReservedSharedMemory(t *testing.T) {
	read := func(reg string) uint64 {
		got, err := runSnippet(t, "mov.u32 %w3, "+reg+";"+out32, 32)
		require.NoError(t, err, reg)
		return got[0]
	}
	total := read("%total_smem_size") // the .u32, aligned up
	assert.GreaterOrEqual(t, total, uint64(4))
	assert.Less(t, total, uint64(64))
	assert.Equal(t, total, read("%reserved_smem_offset_begin"))
	assert.Equal(t, total, read("%reserved_smem_offset_0"))
	assert.Equal(t, total+1024, read("%reserved_smem_offset_end"))
	assert.Equal(t, uint64(1024), read("%reserved_smem_offset_cap"))
	assert.Equal(t, total+512, read("%reserved_smem_offset_1"))
	// Each thread writes its tid at its slot of the scratch and reads
	// its neighbour's after a barrier, as cooperative groups' exchange
	// slots are used; the last slot of the region is in it too.
	body := `mov.u32 %w5, %reserved_smem_offset_1;
	cvt.u64.u32 %x5, %w5;
	mul.wide.u32 %x6, %w4, 4;
	add.s64 %x6, %x5, %x6;
	st.shared.u32 [%x6], %w4;
	mov.u32 %w6, %reserved_smem_offset_end;
	cvt.u64.u32 %x7, %w6;
	st.shared.u32 [%x7+-4], 7;
	bar.sync 0;
	xor.b32 %w7, %w4, 1;
	mul.wide.u32 %x6, %w7, 4;
	add.s64 %x6, %x5, %x6;
	ld.shared.u32 %w3, [%x6];` + out32
	got, err := runSnippet(t, body, 64)
	require.NoError(t, err)
	for i, v := range got {
		assert.Equal(t, uint64(i^1), v, "thread %d", i)
	}
	// Past the region: out of shared memory.
	_, err = runSnippet(t, "mov.u32 %w6, %reserved_smem_offset_end;\n\tcvt.u64.u32 %x7, %w6;\n\tst.shared.u32 [%x7], 7;", 32)
	var f *Fault
	require.ErrorAs(t, err, &f)
	assert.Equal(t, CodeIllegalAddress, f.Code)
}
