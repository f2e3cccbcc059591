package fake

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver"
)

// loadAllocated returns the bytes ModuleLoadData allocates for image
// (runtime.MemStats.TotalAlloc around it, garbage included), its handle
// and its error.
func loadAllocated(b *fakeBackend, image []byte) (uint64, uintptr, error) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	h, err := b.ModuleLoadData(image)
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc, h, err
}

// TestModuleLoadMemoryBounded: the loader (the PTX front-end and the
// interpreter's decoder) allocates at most 20 times the image on hostile
// PTX, and refuses nesting past the front-end's limit (project issue 21: 4
// MB of PTX with a million nested scopes took 1.7 GB).
func TestModuleLoadMemoryBounded(t *testing.T) {
	b := bound(t)
	const head = ".version 8.4\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n"
	var regs strings.Builder
	regs.WriteString(head)
	for i := 0; i < 160; i++ {
		fmt.Fprintf(&regs, "\t.reg .b32 %%r%d_<100>;\n", i)
	}
	regs.WriteString("\tmov.u32 %r0_1, 1;\n\tret;\n}\n")
	var labels strings.Builder
	labels.WriteString(head)
	for i := 0; i < 1<<17; i++ {
		fmt.Fprintf(&labels, "$L__BB0_%d:\n", i)
	}
	labels.WriteString("\tret;\n}\n")
	for name, c := range map[string]struct {
		image string
		want  error
	}{
		"deep nesting": {head + strings.Repeat("{", 2<<20) + strings.Repeat("}", 2<<20) + "}\n", driver.ErrInvalidPTX},
		"many scopes":  {head + strings.Repeat("{ }\n", 1<<20) + "\tret;\n}\n", nil},
		// 16000 registers declared by 3 KB of text: only the one used
		// takes memory.
		"register ranges": {regs.String(), nil},
		"many labels":     {labels.String(), nil},
	} {
		n, h, err := loadAllocated(b, []byte(c.image))
		if c.want != nil {
			assert.ErrorIs(t, err, c.want, name)
		} else if assert.NoError(t, err, name) {
			require.NoError(t, b.ModuleUnload(h))
		}
		assert.LessOrEqual(t, n, uint64(20*len(c.image)+64<<10), "%s: %d bytes for a %d-byte image (%.1fx)", name, n, len(c.image), float64(n)/float64(len(c.image)))
	}
	assert.Len(t, b.Leaks(), 1, "only the primary context")
}
