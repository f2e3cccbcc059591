package ptx

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const fullModule = `//
// a comment
.version 7.8
.target sm_90, debug
.address_size 64
.file 1 "k.cu"

.extern .shared .align 16 .b8 buf[];
.global .align 4 .b8 table[4] = {1, 2, 3, 255};
.const .align 8 .f64 half = 0d3FE0000000000000;
.global .align 4 .f32 fl[2] = {0f3F800000, 2.5};
.global .v2 .u32 pair = {7, 8};
.shared .align 4 .u32 grid2[2][3];

.func (.param .b32 func_retval0) twice(.param .b32 twice_param_0)
{
	.reg .b32 %r<3>;
	ld.param.u32 %r1, [twice_param_0];
	shl.b32 %r2, %r1, 1;
	st.param.b32 [func_retval0+0], %r2;
	ret;
}

.visible .entry k(
	.param .u64 k_param_0,
	.param .align 8 .b8 k_param_1[16]
)
.maxntid 128, 1, 1
{
	.local .align 8 .b8 __local_depot0[16];
	.reg .pred %p<2>;
	.reg .b32 %r<4>, %q;
	.reg .b64 %rd<3>;
	.loc 1 3 5
	mov.u32 %r1, %tid.x;
	@!%p1 bra $L__BB0_2;
	ld.global.v2.u32 {%r2, %r3}, [%rd1+-8];
	shfl.sync.down.b32 %r2|%p1, %r2, 1, 31, -1;
	st.shared.u32 [grid2+4], %r2;
$L__BB0_2:
	{ // callseq 0, 0
	.param .b32 param0;
	st.param.b32 [param0+0], %r1;
	.param .b32 retval0;
	call.uni (retval0), twice, (param0);
	ld.param.b32 %r2, [retval0+0];
	}
	atom.global.cas.b32 %r3, [table], 1, _;
	ret;
}
`

func TestParseModule(t *testing.T) {
	m, err := ParseModule(fullModule + "\x00garbage after the NUL")
	require.NoError(t, err)
	assert.Equal(t, "7.8", m.Version)
	assert.Equal(t, "sm_90", m.Target)
	assert.Equal(t, 64, m.AddressSize)

	require.Len(t, m.Vars, 6)
	buf := m.Vars[0]
	assert.True(t, buf.Extern)
	assert.Equal(t, 0, buf.Count)
	assert.Equal(t, 16, buf.Align)
	assert.Equal(t, []byte{1, 2, 3, 255}, m.Vars[1].Init)
	assert.Equal(t, []byte{0, 0, 0, 0, 0, 0, 0xe0, 0x3f}, m.Vars[2].Init)
	assert.Equal(t, []byte{0, 0, 0x80, 0x3f, 0, 0, 0x20, 0x40}, m.Vars[3].Init, "hex and decimal floats")
	assert.Equal(t, 8, m.Vars[4].Size())
	assert.Equal(t, []byte{7, 0, 0, 0, 8, 0, 0, 0}, m.Vars[4].Init)
	assert.Equal(t, 24, m.Vars[5].Size(), "[2][3] of u32")
	assert.Equal(t, 9, m.Vars[1].Line)

	require.Len(t, m.Funcs, 2)
	f := m.Funcs[0]
	assert.False(t, f.Entry)
	assert.Equal(t, "twice", f.Name)
	require.Len(t, f.Rets, 1)
	assert.Equal(t, "func_retval0", f.Rets[0].Name)
	require.Len(t, f.Params, 1)

	k := m.Funcs[1]
	assert.True(t, k.Entry)
	assert.Equal(t, "visible", k.Linkage)
	assert.Equal(t, [3]int{128, 1, 1}, k.MaxNTID)
	require.Len(t, k.Params, 2)
	assert.Equal(t, 8, k.Params[1].Offset)
	assert.Equal(t, 16, k.Params[1].Size)

	var instrs []string
	for _, s := range k.Body {
		instrs = append(instrs, s.String())
	}
	assert.Equal(t, []string{
		"mov.u32 %r1, %tid.x",
		"@!%p1 bra $L__BB0_2",
		"ld.global.v2.u32 {%r2, %r3}, [%rd1-8]",
		"shfl.sync.down.b32 %r2|%p1, %r2, 1, 31, -1",
		"st.shared.u32 [grid2+4], %r2",
		"st.param.b32 [param0], %r1",
		"call.uni (retval0), twice, (param0)",
		"ld.param.b32 %r2, [retval0]",
		"atom.global.cas.b32 %r3, [table], 1, _",
		"ret",
	}, instrs)
	assert.Equal(t, []Label{{Name: "$L__BB0_2", Line: 40, At: 5}}, k.Labels, "the label names the instruction after it")
	require.Len(t, k.Regs, 3)
	assert.Equal(t, []string{"%r", "%q"}, k.Regs[1].Names)
	assert.Equal(t, []int{4, 0}, k.Regs[1].Count)
	assert.Equal(t, int32(0), k.Regs[1].At)
	// The local depot, then the call sequence's two .param variables
	// inside its scope, declared before the instructions that follow them.
	require.Len(t, k.Vars, 3)
	assert.Equal(t, []int{0, 5, 6}, []int{k.Vars[0].At, k.Vars[1].At, k.Vars[2].At})
	assert.Equal(t, "retval0", k.Vars[2].Name)
	// Lines: the shfl is on line 38 of the text.
	for _, s := range k.Body {
		if s.Op == "shfl" {
			assert.Equal(t, int32(38), s.Line)
			assert.Equal(t, []string{"sync", "down", "b32"}, s.Mods)
		}
	}
	assert.Nil(t, m.Unsupported)
}

func TestParseModuleErrors(t *testing.T) {
	hdr := ".version 7.8\n.target sm_90\n.address_size 64\n"
	for _, c := range []struct{ src, want string }{
		{"", "no .version"},
		{hdr + ".entry k() { add.s32 %r1, %r2 }", "line 4: expected , or ; after operand"},
		{hdr + ".entry k() {\n\tret;\n", "unterminated body"},
		{hdr + ".global .u32 x[0];", "bad array size"},
		{hdr + ".global .u32 x[2] = {1, 2, 3};", "too many initialisers"},
		{hdr + ".global .b8 x[2000000000];", "too large"},
		{hdr + ".global .u32 x[65536][65536];", "too large"},
		{hdr + ".entry k() {\n\t.reg .b32 %r<100000000>;\n}", "bad register count"},
		{hdr + ".entry k() {\n\t.reg .v4 .b32 %r;\n}", "vector registers"},
		{hdr + ".address_size 16", "bad .address_size"},
		{hdr + "add.s32 %r1, %r2, %r3;", "unexpected \"add.s32\" at module scope"},
		{hdr + ".entry k() {\n\tld.global.u32 %r1, [%rd1+%rd2];\n}", "bad address offset"},
		{hdr + ".entry k() {\n\tmov.u32 %r1, " + strings.Repeat("{", 10) + "%r1;\n}", "nested too deep"},
		{hdr + ".global .b8 x[] = {1};", "unsized"},
	} {
		_, err := ParseModule(c.src)
		require.Error(t, err, c.src)
		var pe *Error
		require.ErrorAs(t, err, &pe)
		assert.Contains(t, err.Error(), c.want, c.src)
	}
}
