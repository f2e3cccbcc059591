package ptxexec

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestOutOfBoundsWrite(t *testing.T) {
	p, mem := load(t, "90")
	buf := mem.i32s(make([]int32, 64))
	err := run(t, p, mem, "oob_write", dim(1), dim(64), 0, buf, int32(32))
	var f *Fault
	require.True(t, errors.As(err, &f), "%v", err)
	assert.Equal(t, CodeIllegalAddress, f.Code)
	assert.Equal(t, "st.global.u32 [%rd4], %r5", f.Instr)
	assert.Equal(t, buf+64*4, f.Addr) // thread 32 writes p[64], one past the end
	assert.Equal(t, [3]uint32{32, 0, 0}, f.Thread)
	assert.Positive(t, f.Line)
	assert.Contains(t, f.Error(), "at address 0x")
	// Threads before the faulting one wrote their elements.
	got := mem.readI32(buf, 64)
	assert.Equal(t, int32(31), got[63])
}

func TestDeadlock(t *testing.T) {
	p, mem := load(t, "90")
	buf := mem.i32s(make([]int32, 64))
	err := run(t, p, mem, "deadlock", dim(1), dim(64), 0, buf)
	var f *Fault
	require.True(t, errors.As(err, &f), "%v", err)
	assert.Equal(t, CodeLaunchFailed, f.Code)
	assert.Contains(t, f.Msg, "deadlock")
	assert.Contains(t, f.Instr, "shfl.sync")
}

const header = ".version 7.8\n.target sm_90\n.address_size 64\n"

func TestRefusedAtLoad(t *testing.T) {
	cases := []struct{ body, want string }{
		{"\tmatch.any.sync.b16 %r1, %r2, -1;", "line 10: match.any.sync.b16 %r1, %r2, -1: match of .u16"},
		{"\tredux.sync.add.b32 %r1, %r2, -1;", "redux.sync.add needs .u32 or .s32"},
		{"\tbar.sync 16;", "barrier number 16"},
		{"\tbar.sync 0, 48;", "not a multiple of 32"},
		{"\tbar.arrive 1;", "needs a thread count"},
		{"\tadd.rz.f16 %r1, %r1, %r1;", "line 10: add.rz.f16 %r1, %r1, %r1: add on 16-bit floats rounds to nearest only"},
		{"\tex2.approx.f16 %r1, %r1;", "ex2 on 16-bit floats is not supported"},
		{"\tadd.ftz.bf16 %r1, %r1, %r1;", ".ftz and .sat are not allowed on bf16"},
		{"\tcvt.rn.f16x2.f64 %r1, %fd1, %fd1;", "needs .f32 sources"},
		{"\tbra %r1;", "indirect branches"},
		{"\tbra NOWHERE;", "unknown label NOWHERE"},
		{"\tadd.s32 %r1, %r9, 1;", "unknown register %r9"},
		{"\tcvta.shared.u32 %r1, %r2;", "32-bit generic addresses"},
		{"\tmin.NaN.f32 %f1, %f1, %f1;", "unsupported modifier .NaN"},
		{"\ttex.1d.v4.f32.s32 {%f1, %f1, %f1, %f1}, [t, {%r1}];", "line 10"},
	}
	for _, c := range cases {
		src := header + ".visible .entry k()\n{\n\t.reg .pred %p<2>;\n\t.reg .b32 %r<3>;\n\t.reg .f32 %f<2>;\n\t.reg .f64 %fd<2>;\n" + c.body + "\n\tret;\n}\n"
		_, err := Compile(src)
		require.Error(t, err, c.body)
		assert.Contains(t, err.Error(), c.want, c.body)
	}
}

func TestTrap(t *testing.T) {
	src := header + ".visible .entry k()\n{\n\ttrap;\n}\n"
	p, err := Compile(src)
	require.NoError(t, err)
	err = p.Kernels["k"].Run(&Launch{Grid: dim(1), Block: dim(1), Mem: newMem()})
	var f *Fault
	require.True(t, errors.As(err, &f))
	assert.Equal(t, CodeLaunchFailed, f.Code)
	assert.Equal(t, 6, f.Line)
}

func TestMisaligned(t *testing.T) {
	src := header + `.visible .entry k(.param .u64 p)
{
	.reg .b64 %rd<3>;
	.reg .b32 %r<2>;
	ld.param.u64 %rd1, [p];
	ld.global.u32 %r1, [%rd1+2];
	ret;
}
`
	p, err := Compile(src)
	require.NoError(t, err)
	mem := newMem()
	buf := mem.alloc(16)
	err = run(t, p, mem, "k", dim(1), dim(1), 0, buf)
	var f *Fault
	require.True(t, errors.As(err, &f))
	assert.Equal(t, CodeMisalignedAddress, f.Code)
	assert.Equal(t, buf+2, f.Addr)
}
