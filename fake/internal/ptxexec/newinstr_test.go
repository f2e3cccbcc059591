package ptxexec

import (
	"encoding/binary"
	"errors"
	"math/bits"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/fake/internal/fpu"
)

func TestSpecialRegisters(t *testing.T) {
	cases := []struct {
		name string
		body string
		want func(lane uint64) uint64
	}{
		{"WARP_SZ", "mov.u32 %w3, WARP_SZ;" + out32, func(uint64) uint64 { return 32 }},
		{"WARP_SZ operand", "rem.u32 %w3, %w4, WARP_SZ;" + out32, func(l uint64) uint64 { return l % 32 }},
		{"%laneid", "mov.u32 %w3, %laneid;" + out32, func(l uint64) uint64 { return l % 32 }},
		{"%lanemask_lt", "mov.u32 %w3, %lanemask_lt;" + out32, func(l uint64) uint64 { return 1<<(l%32) - 1 }},
		{"%lanemask_ge", "mov.u32 %w3, %lanemask_ge;" + out32, func(l uint64) uint64 { return ^(1<<(l%32) - 1) & 0xffffffff }},
		{"%warpid", "mov.u32 %w3, %warpid;" + out32, func(l uint64) uint64 { return l / 32 }},
		{"%envreg3", "mov.u32 %w3, %envreg3;" + out32, func(uint64) uint64 { return 0 }},
		{"%envreg1 outside a cooperative launch", "mov.u32 %w3, %envreg1;" + out32, func(uint64) uint64 { return 0 }},
		{"%cluster_nctarank", "mov.u32 %w3, %cluster_nctarank;" + out32, func(uint64) uint64 { return 1 }},
		{"%clusterid.x", "mov.u32 %w3, %clusterid.x;" + out32, func(uint64) uint64 { return 0 }},
		{"%clock64 advances", "mov.u64 %x5, %clock64;\n\tmov.u64 %x6, %clock64;\n\tsetp.ge.u64 %p1, %x6, %x5;\n\tselp.u64 %x3, 1, 0, %p1;", func(uint64) uint64 { return 1 }},
		{"%globaltimer is nanoseconds since 1970", "mov.u64 %x5, %globaltimer;\n\tsetp.gt.u64 %p1, %x5, 1600000000000000000;\n\tselp.u64 %x3, 1, 0, %p1;", func(uint64) uint64 { return 1 }},
	}
	for _, c := range cases {
		got, err := runSnippet(t, c.body, 64)
		require.NoError(t, err, c.name)
		for i, v := range got {
			require.Equal(t, c.want(uint64(i)), v, "%s thread %d", c.name, i)
		}
	}
	_, err := Compile(snippet("mov.u32 %envreg1, 3;"))
	require.ErrorContains(t, err, "read-only")
}

func TestBitInstructions(t *testing.T) {
	m32 := func(x int64) uint64 { return uint64(uint32(x)) }
	cases := []struct {
		name string
		body string
		in   []uint64
		want uint64
	}{
		{"bfind.u32", "bfind.u32 %w3, %w0;" + out32, []uint64{0x00f0}, 7},
		{"bfind.u32 of 0", "bfind.u32 %w3, %w0;" + out32, []uint64{0}, 0xffffffff},
		{"bfind.shiftamt.u32", "bfind.shiftamt.u32 %w3, %w0;" + out32, []uint64{0x00f0}, 24},
		{"bfind.s32 negative", "bfind.s32 %w3, %w0;" + out32, []uint64{m32(-256)}, 7},
		{"bfind.s32 of -1", "bfind.s32 %w3, %w0;" + out32, []uint64{m32(-1)}, 0xffffffff},
		{"bfind.u64", "bfind.u64 %w3, %x0;" + out32, []uint64{1 << 40}, 40},
		{"bfind.s64", "bfind.s64 %w3, %x0;" + out32, []uint64{uint64(1) << 63}, 62},
		{"bfind.shiftamt.u64", "bfind.shiftamt.u64 %w3, %x0;" + out32, []uint64{1}, 63},
		{"popc.b64", "popc.b64 %w3, %x0;" + out32, []uint64{0xffff_0000_0000_00ff}, 24},
		// fns: the PTX ISA's examples, then the n-th bit, offset 0 and not found.
		{"fns up from a set bit", "fns.b32 %w3, %w0, 3, 1;" + out32, []uint64{0xaaaaaaaa}, 3},
		{"fns down from a set bit", "fns.b32 %w3, %w0, 3, -1;" + out32, []uint64{0xaaaaaaaa}, 3},
		{"fns up from a clear bit", "fns.b32 %w3, %w0, 2, 1;" + out32, []uint64{0xaaaaaaaa}, 3},
		{"fns down from a clear bit", "fns.b32 %w3, %w0, 2, -1;" + out32, []uint64{0xaaaaaaaa}, 1},
		{"fns third set bit", "fns.b32 %w3, %w0, %w1, %w2;" + out32, []uint64{0b1011_0110, 0, 3}, 4},
		{"fns offset 0, bit clear", "fns.b32 %w3, %w0, 0, 0;" + out32, []uint64{0b10}, 0xffffffff},
		{"fns offset 0, bit set", "fns.b32 %w3, %w0, 1, 0;" + out32, []uint64{0b10}, 1},
		{"fns past bit 31", "fns.b32 %w3, %w0, 30, 3;" + out32, []uint64{0xffffffff}, 0xffffffff},
		{"fns below bit 0", "fns.b32 %w3, %w0, %w1, %w2;" + out32, []uint64{0xffffffff, 1, m32(-3)}, 0xffffffff},
		{"brev.b64", "brev.b64 %x3, %x0;", []uint64{1}, 1 << 63},
		{"lop3 xor3", "lop3.b32 %w3, %w0, %w1, %w2, 0x96;" + out32, []uint64{0xf0f0, 0xff00, 0x1234}, 0xf0f0 ^ 0xff00 ^ 0x1234},
		{"lop3 a&b|c", "lop3.b32 %w3, %w0, %w1, %w2, 0xea;" + out32, []uint64{0xf0f0, 0xff00, 0x0003}, 0xf0f0&0xff00 | 3},
		{"dp4a.u32.u32", "dp4a.u32.u32 %w3, %w0, %w1, %w2;" + out32, []uint64{0x01020304, 0x05060708, 10}, 10 + 1*5 + 2*6 + 3*7 + 4*8},
		{"dp4a.s32.s32", "dp4a.s32.s32 %w3, %w0, %w1, %w2;" + out32, []uint64{0xff, 0x02, 0}, m32(-2)},
		{"dp4a.s32.u32", "dp4a.s32.u32 %w3, %w0, %w1, %w2;" + out32, []uint64{0xff, 0xff, 1}, m32(-255 + 1)},
		{"dp2a.lo.s32.s32", "dp2a.lo.s32.s32 %w3, %w0, %w1, %w2;" + out32, []uint64{0x0003_fffe, 0x0000_0405, 7}, m32(7 - 2*5 + 3*4)},
		{"dp2a.hi.u32.u32", "dp2a.hi.u32.u32 %w3, %w0, %w1, %w2;" + out32, []uint64{0x0003_0002, 0x0405_0000, 0}, 2*5 + 3*4},
		{"prmt.b32.f4e", "prmt.b32.f4e %w3, %w0, %w1, %w2;" + out32, []uint64{0x44332211, 0x88776655, 1}, 0x55443322},
		{"prmt.b32.rc8", "prmt.b32.rc8 %w3, %w0, %w1, %w2;" + out32, []uint64{0x44332211, 0x88776655, 2}, 0x33333333},
		// copysign d, a, b: b's magnitude, a's sign (NaN payloads kept).
		{"copysign.f32", "copysign.f32 %w3, %w0, %w1;" + out32, []uint64{0xbf800000, 0x40400000}, 0xc0400000},
		{"copysign.f32 positive", "copysign.f32 %w3, %w0, %w1;" + out32, []uint64{0x3f800000, 0xc0400000}, 0x40400000},
		{"copysign.f32 NaN", "copysign.f32 %w3, %w0, %w1;" + out32, []uint64{0x80000000, 0x7fc00001}, 0xffc00001},
		{"copysign.f64", "copysign.f64 %x3, %x0, %x1;", []uint64{1 << 63, 0x4008000000000000}, 0xc008000000000000},
	}
	for _, c := range cases {
		got, err := runSnippet(t, c.body, 1, c.in...)
		require.NoError(t, err, c.name)
		assert.Equal(t, c.want, got[0], "%s: got %#x want %#x", c.name, got[0], c.want)
	}
	// Lop3 over random inputs against fpu's truth table.
	for lut := 0; lut < 256; lut += 37 {
		got, err := runSnippet(t, "lop3.b32 %w3, %w0, %w1, %w2, "+itoa(lut)+";"+out32, 1, 0x12345678, 0x9abcdef0, 0x0ff00ff0)
		require.NoError(t, err)
		assert.Equal(t, uint64(fpu.Lop3(0x12345678, 0x9abcdef0, 0x0ff00ff0, uint8(lut))), got[0], "lut %#x", lut)
	}
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	s := ""
	for ; n > 0; n /= 10 {
		s = string(rune('0'+n%10)) + s
	}
	return s
}

func TestReduxAndMatch(t *testing.T) {
	m32 := func(x int64) uint64 { return uint64(uint32(x)) }
	lanes := func(f func(lane uint64) uint64) []uint64 {
		out := make([]uint64, 32)
		for i := range out {
			out[i] = f(uint64(i))
		}
		return out
	}
	cases := []struct {
		name string
		body string
		want []uint64
	}{
		{"redux.add", "redux.sync.add.u32 %w3, %w4, -1;" + out32, lanes(func(uint64) uint64 { return 31 * 32 / 2 })},
		{"redux.min.s32", "sub.s32 %w5, 10, %w4;\n\tredux.sync.min.s32 %w3, %w5, -1;" + out32, lanes(func(uint64) uint64 { return m32(10 - 31) })},
		{"redux.min.u32", "sub.s32 %w5, 10, %w4;\n\tredux.sync.min.u32 %w3, %w5, -1;" + out32, lanes(func(uint64) uint64 { return 0 })},
		{"redux.max.u32", "sub.s32 %w5, 10, %w4;\n\tredux.sync.max.u32 %w3, %w5, -1;" + out32, lanes(func(uint64) uint64 { return m32(10 - 11) })},
		{"redux.or", "shl.b32 %w5, 1, %w4;\n\tredux.sync.or.b32 %w3, %w5, -1;" + out32, lanes(func(uint64) uint64 { return 0xffffffff })},
		{"redux.and", "or.b32 %w5, %w4, 0x100;\n\tredux.sync.and.b32 %w3, %w5, -1;" + out32, lanes(func(uint64) uint64 { return 0x100 })},
		{"redux.xor", "redux.sync.xor.b32 %w3, %w4, -1;" + out32, lanes(func(uint64) uint64 { return 0 })},
		{"redux with a partial mask", "setp.ge.u32 %p2, %w4, 16;\n\t@%p2 bra END;\n\tredux.sync.add.u32 %w3, 1, 0xffff;\nEND:" + out32,
			lanes(func(l uint64) uint64 { return b2u(l < 16) * 16 })},
		{"match.any", "and.b32 %w5, %w4, 3;\n\tmatch.any.sync.b32 %w3, %w5, -1;" + out32, lanes(func(l uint64) uint64 { return 0x11111111 << (l & 3) })},
		{"match.any.b64", "and.b32 %w5, %w4, 1;\n\tcvt.u64.u32 %x5, %w5;\n\tshl.b64 %x5, %x5, 40;\n\tmatch.any.sync.b64 %w3, %x5, -1;" + out32,
			lanes(func(l uint64) uint64 { return 0x55555555 << (l & 1) })},
		{"match.all equal", "match.all.sync.b32 %w3|%p1, 7, -1;\n\tselp.u32 %w5, 1, 0, %p1;\n\txor.b32 %w3, %w3, %w5;" + out32,
			lanes(func(uint64) uint64 { return 0xfffffffe })},
		{"match.all different", "match.all.sync.b32 %w3|%p1, %w4, -1;\n\tselp.u32 %w5, 1, 0, %p1;\n\txor.b32 %w3, %w3, %w5;" + out32,
			lanes(func(uint64) uint64 { return 0 })},
	}
	for _, c := range cases {
		got, err := runSnippet(t, c.body, 32)
		require.NoError(t, err, c.name)
		assert.Equal(t, c.want, got, c.name)
	}
	_, err := runSnippet(t, "redux.sync.add.u32 %w3, %w4, 2;", 32)
	var f *Fault
	require.True(t, errors.As(err, &f), "%v", err)
	assert.Equal(t, CodeIllegalInstr, f.Code)
}

func TestBarriers(t *testing.T) {
	threads := func(n int, f func(i uint64) uint64) []uint64 {
		out := make([]uint64, n)
		for i := range out {
			out[i] = f(uint64(i))
		}
		return out
	}
	cases := []struct {
		name    string
		body    string
		threads uint32
		want    []uint64
	}{
		{"bar.red.popc", "setp.lt.u32 %p1, %w4, 40;\n\tbar.red.popc.u32 %w3, 0, %p1;" + out32, 64, threads(64, func(uint64) uint64 { return 40 })},
		{"bar.red.popc negated", "setp.lt.u32 %p1, %w4, 40;\n\tbarrier.red.popc.u32 %w3, 0, !%p1;" + out32, 64, threads(64, func(uint64) uint64 { return 24 })},
		{"bar.red.and", "setp.lt.u32 %p1, %w4, 40;\n\tbar.red.and.pred %p2, 0, %p1;\n\tselp.u32 %w3, 1, 0, %p2;" + out32, 64, threads(64, func(uint64) uint64 { return 0 })},
		{"bar.red.or", "setp.eq.u32 %p1, %w4, 63;\n\tbar.red.or.pred %p2, 0, %p1;\n\tselp.u32 %w3, 1, 0, %p2;" + out32, 64, threads(64, func(uint64) uint64 { return 1 })},
		// Warps 0 and 1 produce into shared memory and arrive at barrier 1;
		// warps 2 and 3 wait there (64 + 64 threads) and read.
		{"producer and consumer", `setp.lt.u32 %p1, %w4, 64;
	@!%p1 bra CONSUME;
	st.shared.u32 [cnt], 77;
	bar.arrive 1, 128;
	mov.u32 %w3, 1;
	bra END;
CONSUME:
	bar.sync 1, 128;
	ld.shared.u32 %w3, [cnt];
END:` + out32, 128, threads(128, func(i uint64) uint64 { return 1 + b2u(i >= 64)*76 })},
		// Barrier 2 with a count of 32: each warp passes on its own.
		{"bar.sync with a warp's count", "bar.sync 2, 32;\n\tmov.u32 %w3, 5;" + out32, 64, threads(64, func(uint64) uint64 { return 5 })},
	}
	for _, c := range cases {
		got, err := runSnippet(t, c.body, c.threads)
		require.NoError(t, err, c.name)
		assert.Equal(t, c.want, got, c.name)
	}
	// A count that the threads never reach: a deadlock, not a hang.
	// Warp 1 waits there as one (its threads unmarked until the report),
	// warp 0 exits: the report names the barrier and a thread of warp 1.
	_, err := runSnippet(t, "setp.ge.u32 %p1, %w4, 32;\n\t@%p1 bar.sync 1, 64;", 64)
	var f *Fault
	require.True(t, errors.As(err, &f), "%v", err)
	assert.Contains(t, f.Msg, "deadlock")
	assert.Contains(t, f.Instr, "bar.sync")
	assert.GreaterOrEqual(t, f.Thread[0], uint32(32))
}

// TestWarpIntrinsicsKernel runs what NVRTC 11.8 emits for warpSize,
// __reduce_*_sync, __match_any_sync, __ffs, __clz, __popc and inline
// named barriers (testdata/kernels.cu, warp_intrinsics).
func TestWarpIntrinsicsKernel(t *testing.T) {
	for _, arch := range archs {
		p, mem := load(t, arch)
		out := mem.alloc(4 * 8 * 64)
		require.NoError(t, run(t, p, mem, "warp_intrinsics", dim(1), dim(64), 0, out))
		b := mem.bytes(out)
		for i := 0; i < 64; i++ {
			lane := uint32(i % 32)
			o := func(j int) uint32 { return binary.LittleEndian.Uint32(b[4*(8*i+j):]) }
			ffs := uint32(0)
			if lane != 0 {
				ffs = uint32(bits.TrailingZeros32(lane<<4)) + 1
			}
			want := []uint32{32, 31 * 32 / 2, uint32(0xffffffff - 20), 0xffffffff, 0x11111111 << (lane & 3), ffs,
				uint32(bits.LeadingZeros32(lane) + bits.OnesCount32(lane)), map[bool]uint32{true: 1, false: 99}[i < 32]}
			for j, w := range want {
				require.Equal(t, w, o(j), "%s thread %d output %d", arch, i, j)
			}
		}
	}
}

// TestDebugInfo runs kernels NVRTC 11.8 compiled with -G (DWARF .section
// blocks, .file, .loc) and with -lineinfo (.file, .loc): the debug
// directives are accepted and change nothing.
func TestDebugInfo(t *testing.T) {
	for _, name := range []string{"debug_G_90.ptx", "debug_li_90.ptx"} {
		src, err := os.ReadFile("testdata/" + name)
		require.NoError(t, err)
		p, err := Compile(string(src))
		require.NoError(t, err, name)
		mem := newMem()
		mem.bind(p)
		buf := mem.f32s([]float32{1, 2, 3, 4})
		require.NoError(t, run(t, p, mem, "dbg", dim(1), dim(4), 0, buf, int32(3)), name)
		assert.Equal(t, []float32{3, 5, 7, 4}, mem.readF32(buf, 4), name)
	}
}
