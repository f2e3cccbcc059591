package ptx

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestParseRejectsHostileSizes: array counts and alignments that overflow
// or exceed the parameter space are parse errors, never a size of 0, a
// negative offset or a gigantic buffer (project issue 9).
func TestParseRejectsHostileSizes(t *testing.T) {
	cases := map[string]string{
		// 8 * 2^61 wraps to 0 in 64-bit arithmetic.
		"array overflows to 0": ".visible .entry k(.param .b64 p[2305843009213693952]) {}",
		"array overflows":      ".visible .entry k(.param .b64 p[1152921504606846977]) {}",
		"array beyond int":     ".visible .entry k(.param .b8 p[99999999999999999999999]) {}",
		"array zero":           ".visible .entry k(.param .b8 p[0]) {}",
		"array negative":       ".visible .entry k(.param .b8 p[-4]) {}",
		"array too big":        ".visible .entry k(.param .b8 p[32765]) {}",
		"array sum too big":    ".visible .entry k(.param .b8 p[32764], .param .b8 q[1]) {}",
		"align zero":           ".visible .entry k(.param .align 0 .b8 p[4]) {}",
		"align negative":       ".visible .entry k(.param .align -8 .b8 p[4]) {}",
		"align not pow2":       ".visible .entry k(.param .align 12 .b8 p[4]) {}",
		// 2^62 is a power of two: aligning up from 1 gives a huge offset,
		// and 2^63 would not even fit an int.
		"align huge":      ".visible .entry k(.param .u8 a, .param .align 4611686018427387904 .b8 p[4]) {}",
		"align 2^63":      ".visible .entry k(.param .align 9223372036854775808 .b8 p[4]) {}",
		"align 1 GiB":     ".visible .entry k(.param .u8 a, .param .align 1073741824 .b8 p[4]) {}",
		"align too big":   ".visible .entry k(.param .align 65536 .b8 p[4]) {}",
		"pointee align 0": ".visible .entry k(.param .u64 .ptr .global .align 0 p) {}",
		"many params": ".visible .entry k(" + strings.Repeat(".param .b64 p[4000],", 8) +
			".param .b64 q[100]) {}",
	}
	for name, src := range cases {
		t.Run(name, func(t *testing.T) {
			entries, err := Parse(src)
			var pe *Error
			require.ErrorAs(t, err, &pe, "entries: %+v", entries)
			assert.Equal(t, 1, pe.Line)
		})
	}
}

// TestParseLimits: the largest parameter space the PTX ISA allows parses,
// with the largest alignment the parser takes.
func TestParseLimits(t *testing.T) {
	entries, err := Parse(".visible .entry k(.param .b8 p[32764]) {}")
	require.NoError(t, err)
	assert.Equal(t, MaxParamSize, entries[0].Size())

	entries, err = Parse(".visible .entry k(.param .align 32768 .b8 p[16], .param .u32 n) {}")
	require.NoError(t, err)
	assert.Equal(t, 32768, entries[0].Params[0].Align)
	assert.Equal(t, 20, entries[0].Size())

	// A parameter that would start past the limit.
	_, err = Parse(".visible .entry k(.param .u8 a, .param .align 32768 .b8 p[16]) {}")
	require.Error(t, err)

	// 4094 .b64 then one .u32: 32752 + 4 = 32756 fits; one more .b64 does not.
	var sb strings.Builder
	for i := 0; i < 4094; i++ {
		fmt.Fprintf(&sb, ".param .b64 p%d,", i)
	}
	entries, err = Parse(".visible .entry k(" + sb.String() + ".param .u32 n) {}")
	require.NoError(t, err)
	assert.Equal(t, 32756, entries[0].Size())
	_, err = Parse(".visible .entry k(" + sb.String() + ".param .u32 n, .param .b64 last) {}")
	require.Error(t, err)
}

// TestParseArrayDefaultAlignment: an array without .align is aligned to its
// element's size (PTX ISA "Alignment": "The default alignment for scalar and
// array variables is to a multiple of the base-type size"), not to the
// array's size, which need not be a power of two.
func TestParseArrayDefaultAlignment(t *testing.T) {
	entries, err := Parse(".visible .entry k(.param .u8 x, .param .b8 a[6], .param .b16 h[3], .param .b32 w[3]) {}")
	require.NoError(t, err)
	p := entries[0].Params
	require.Len(t, p, 4)
	assert.Equal(t, []int{1, 1, 2, 4}, []int{p[0].Align, p[1].Align, p[2].Align, p[3].Align})
	assert.Equal(t, []int{0, 1, 8, 16}, []int{p[0].Offset, p[1].Offset, p[2].Offset, p[3].Offset})
	assert.Equal(t, 28, entries[0].Size())
}
