package fake

import (
	"encoding/binary"
	"testing"

	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver"
)

// fakeFatbin lays out a fatbin with one entry of a 64-byte entry header
// claiming claim payload bytes, followed by payload; body is the
// container's body size (0: the entry's real size).
func fakeFatbin(body, claim uint64, payload []byte) []byte {
	h := make([]byte, 16+64)
	copy(h, []byte{0x50, 0xed, 0x55, 0xba, 1, 0, 16, 0})
	if body == 0 {
		body = 64 + uint64(len(payload))
	}
	binary.LittleEndian.PutUint64(h[8:], body)
	binary.LittleEndian.PutUint16(h[16:], 1) // PTX
	binary.LittleEndian.PutUint16(h[18:], 0x0101)
	binary.LittleEndian.PutUint32(h[20:], 64)
	binary.LittleEndian.PutUint64(h[24:], claim)
	return append(h, payload...)
}

// TestModuleLoadFatbin: the fake refuses a fatbin whose entries do not lie
// inside the image with ErrInvalidImage, as the real backend does before
// calling the driver; a well-formed fatbin holds machine code the fake
// cannot run: ErrNoBinaryForGPU.
func TestModuleLoadFatbin(t *testing.T) {
	b := bound(t)
	ptx := []byte(".version 8.8\n.target sm_90\n\x00\x00")
	for name, img := range map[string][]byte{
		"first entry claims more than the image": fakeFatbin(0, 1<<20, ptx),
		"entry claims near 1<<64":                fakeFatbin(0, ^uint64(0)-8, ptx),
		"body past the end":                      fakeFatbin(1<<20, uint64(len(ptx)), ptx),
		"truncated entry header":                 fakeFatbin(0, uint64(len(ptx)), ptx)[:16+40],
		"truncated container header":             fakeFatbin(0, uint64(len(ptx)), ptx)[:10],
	} {
		_, err := b.ModuleLoadData(img)
		assert.ErrorIs(t, err, driver.ErrInvalidImage, name)
	}
	elf := fakeFatbin(0, uint64(len(ptx)), ptx)
	binary.LittleEndian.PutUint16(elf[16:], 2) // an ELF entry
	_, err := b.ModuleLoadData(elf)
	assert.ErrorIs(t, err, driver.ErrNoBinaryForGPU, "a well-formed fatbin with machine code only")
	assert.Len(t, b.Leaks(), 1, "only the bound primary context")
}

// TestModuleLoadFatbinPTX: the PTX entry of a fatbin runs in the
// interpreter; compressed PTX (binary) does not count.
func TestModuleLoadFatbinPTX(t *testing.T) {
	b := bound(t)
	src := []byte(".version 7.8\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n\t.reg .b64 %rd<2>;\n\t.reg .b32 %r<2>;\n\tld.param.u64 %rd1, [p];\n\tmov.u32 %r1, 42;\n\tst.global.u32 [%rd1], %r1;\n\tret;\n}\n\x00\x00")
	m, err := b.ModuleLoadData(fakeFatbin(0, uint64(len(src)), src))
	require.NoError(t, err)
	f, err := b.ModuleGetFunction(m, "k")
	require.NoError(t, err)
	p, err := b.MemAlloc(4)
	require.NoError(t, err)
	require.NoError(t, b.LaunchKernel(f, [3]uint32{1, 1, 1}, [3]uint32{1, 1, 1}, 0, 0, args(unsafe.Pointer(&p))))
	assert.Equal(t, []byte{42, 0, 0, 0}, readDevice(t, b, p, 4))
	require.NoError(t, b.MemFree(p))
	require.NoError(t, b.ModuleUnload(m))

	compressed := append([]byte{0x28, 0xb5, 0x2f, 0xfd}, src...) // a zstd frame's magic first
	_, err = b.ModuleLoadData(fakeFatbin(0, uint64(len(compressed)), compressed))
	assert.ErrorIs(t, err, driver.ErrNoBinaryForGPU)
}
