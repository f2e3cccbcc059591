package ptxexec

import (
	"encoding/binary"
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// snippet wraps PTX statements in a kernel: p0..p2 (64-bit parameters)
// are in %x0..%x2, their low halves in %w0..%w2 and %f0..%f2, and in %d0..%d2
// as doubles; %w4 is %tid.x. Each thread stores %x3 at out[tid].
func snippet(body string) string {
	return header + `.visible .entry k(.param .u64 out, .param .b64 p0, .param .b64 p1, .param .b64 p2)
{
	.reg .pred %p<4>;
	.reg .b32 %w<8>;
	.reg .b64 %x<8>;
	.reg .f32 %f<8>;
	.reg .f64 %d<8>;
	.reg .b64 %rd<4>;
	.shared .align 4 .u32 cnt;
	ld.param.b64 %x0, [p0];
	ld.param.b64 %x1, [p1];
	ld.param.b64 %x2, [p2];
	cvt.u32.u64 %w0, %x0;
	cvt.u32.u64 %w1, %x1;
	cvt.u32.u64 %w2, %x2;
	mov.b32 %f0, %w0;
	mov.b32 %f1, %w1;
	mov.b32 %f2, %w2;
	mov.b64 %d0, %x0;
	mov.b64 %d1, %x1;
	mov.b64 %d2, %x2;
	mov.u64 %x3, 0;
	mov.u32 %w4, %tid.x;
` + body + `
	ld.param.u64 %rd1, [out];
	cvta.to.global.u64 %rd1, %rd1;
	mul.wide.u32 %rd2, %w4, 8;
	add.s64 %rd1, %rd1, %rd2;
	st.global.u64 [%rd1], %x3;
	ret;
}
`
}

// runSnippet runs body on threads threads and returns each one's %x3.
func runSnippet(t *testing.T, body string, threads uint32, in ...uint64) ([]uint64, error) {
	t.Helper()
	p, err := Compile(snippet(body))
	require.NoError(t, err, body)
	mem := newMem()
	out := mem.alloc(8 * int(threads))
	var args [3]uint64
	copy(args[:], in)
	k := p.Kernels["k"]
	buf := make([]byte, k.ParamSize)
	binary.LittleEndian.PutUint64(buf, out)
	for i, a := range args {
		binary.LittleEndian.PutUint64(buf[8+8*i:], a)
	}
	err = k.Run(&Launch{Grid: dim(1), Block: dim(threads), Params: buf, Mem: mem})
	res := make([]uint64, threads)
	b := mem.bytes(out)
	for i := range res {
		res[i] = binary.LittleEndian.Uint64(b[8*i:])
	}
	return res, err
}

func f32b(f float32) uint64 { return uint64(math.Float32bits(f)) }
func f64b(f float64) uint64 { return math.Float64bits(f) }

const (
	out32  = "\n\tcvt.u64.u32 %x3, %w3;"
	outF32 = "\n\tmov.b32 %w3, %f3;\n\tcvt.u64.u32 %x3, %w3;"
	outF64 = "\n\tmov.b64 %x3, %d3;"
)

func TestInstructions(t *testing.T) {
	neg := func(x int64) uint64 { return uint64(x) }
	m32 := func(x int64) uint64 { return uint64(uint32(x)) }
	nan32 := f32b(float32(math.NaN()))
	cases := []struct {
		name string
		body string
		in   []uint64
		want uint64
	}{
		{"div.u32 by zero", "div.u32 %w3, %w0, %w1;" + out32, []uint64{7, 0}, 0xffffffff},
		{"div.s32 by zero", "div.s32 %w3, %w0, %w1;" + out32, []uint64{m32(-7), 0}, 0xffffffff},
		{"rem.s32 by zero", "rem.s32 %w3, %w0, %w1;" + out32, []uint64{m32(-7), 0}, m32(-7)},
		{"div.s32 overflow", "div.s32 %w3, %w0, %w1;" + out32, []uint64{m32(math.MinInt32), m32(-1)}, m32(math.MinInt32)},
		{"rem.s32 overflow", "rem.s32 %w3, %w0, %w1;" + out32, []uint64{m32(math.MinInt32), m32(-1)}, 0},
		{"div.s64", "div.s64 %x3, %x0, %x1;", []uint64{neg(-9), 2}, neg(-4)},
		{"rem.u64 by zero", "rem.u64 %x3, %x0, %x1;", []uint64{9, 0}, 9},
		{"shl.b32 past width", "shl.b32 %w3, %w0, %w1;" + out32, []uint64{1, 33}, 0},
		{"shr.s32 past width", "shr.s32 %w3, %w0, %w1;" + out32, []uint64{m32(-8), 40}, 0xffffffff},
		{"shr.u32", "shr.u32 %w3, %w0, %w1;" + out32, []uint64{0x80000000, 31}, 1},
		{"shr.u64 past width", "shr.u64 %x3, %x0, %w1;", []uint64{math.MaxUint64, 64}, 0},
		{"mul.hi.u32", "mul.hi.u32 %w3, %w0, %w1;" + out32, []uint64{0xffffffff, 0xffffffff}, 0xfffffffe},
		{"mul.hi.s32", "mul.hi.s32 %w3, %w0, %w1;" + out32, []uint64{m32(-1), m32(-1)}, 0},
		{"mul.hi.s64", "mul.hi.s64 %x3, %x0, %x1;", []uint64{neg(-1), 5}, neg(-1)},
		{"mul.hi.u64", "mul.hi.u64 %x3, %x0, %x1;", []uint64{1 << 63, 4}, 2},
		{"mul.wide.s32", "mul.wide.s32 %x3, %w0, %w1;", []uint64{m32(-3), 5}, neg(-15)},
		{"mad.lo.s32 wraps", "mad.lo.s32 %w3, %w0, %w1, %w2;" + out32, []uint64{0x10000, 0x10000, 5}, 5},
		{"min.s32", "min.s32 %w3, %w0, %w1;" + out32, []uint64{m32(-3), 2}, m32(-3)},
		{"max.u32", "max.u32 %w3, %w0, %w1;" + out32, []uint64{m32(-3), 2}, m32(-3)},
		{"abs.s32", "abs.s32 %w3, %w0;" + out32, []uint64{m32(-3)}, 3},
		{"neg.s64", "neg.s64 %x3, %x0;", []uint64{5}, neg(-5)},
		{"not.b32", "not.b32 %w3, %w0;" + out32, []uint64{0xf0f0f0f0}, 0x0f0f0f0f},
		{"bfe.u32", "bfe.u32 %w3, %w0, 4, 8;" + out32, []uint64{0xabcd}, 0xbc},
		{"bfe.s32", "bfe.s32 %w3, %w0, 4, 4;" + out32, []uint64{0xf0}, 0xffffffff},
		{"bfi.b32", "bfi.b32 %w3, %w0, %w1, 8, 4;" + out32, []uint64{0xf, 0}, 0xf00},
		{"brev.b32", "brev.b32 %w3, %w0;" + out32, []uint64{1}, 0x80000000},
		{"popc.b32", "popc.b32 %w3, %w0;" + out32, []uint64{0xff00ff}, 16},
		{"clz.b32", "clz.b32 %w3, %w0;" + out32, []uint64{1}, 31},
		{"clz.b32 of 0", "clz.b32 %w3, %w0;" + out32, []uint64{0}, 32},
		{"clz.b64", "clz.b64 %w3, %x0;" + out32, []uint64{1}, 63},
		{"setp.ltu.f32 NaN", "setp.ltu.f32 %p1, %f0, %f1;\n\tselp.u32 %w3, 1, 0, %p1;" + out32, []uint64{nan32, f32b(1)}, 1},
		{"setp.lt.f32 NaN", "setp.lt.f32 %p1, %f0, %f1;\n\tselp.u32 %w3, 1, 0, %p1;" + out32, []uint64{nan32, f32b(1)}, 0},
		{"setp.lo.u32", "setp.lo.u32 %p1, %w0, %w1;\n\tselp.u32 %w3, 1, 0, %p1;" + out32, []uint64{1, m32(-1)}, 1},
		{"setp.lt.s32", "setp.lt.s32 %p1, %w0, %w1;\n\tselp.u32 %w3, 1, 0, %p1;" + out32, []uint64{1, m32(-1)}, 0},
		{"setp.and", "setp.eq.u32 %p1, %w0, 1;\n\tsetp.lt.and.u32 %p2, %w1, 5, %p1;\n\tselp.u32 %w3, 1, 0, %p2;" + out32, []uint64{1, 3}, 1},
		{"setp.or negated", "setp.eq.u32 %p1, %w0, 1;\n\tsetp.lt.or.u32 %p2, %w1, 5, !%p1;\n\tselp.u32 %w3, 1, 0, %p2;" + out32, []uint64{1, 7}, 0},
		{"setp two destinations", "setp.lt.u32 %p2|%p3, %w0, %w1;\n\tselp.u32 %w3, 1, 0, %p3;" + out32, []uint64{1, 7}, 0},
		{"and.pred not.pred", "setp.eq.u32 %p1, %w0, 1;\n\tnot.pred %p2, %p1;\n\tand.pred %p3, %p1, %p2;\n\tselp.u32 %w3, 1, 2, %p3;" + out32, []uint64{1}, 2},
		{"guard negated", "mov.u32 %w3, 7;\n\tsetp.eq.u32 %p1, %w0, 1;\n\t@!%p1 mov.u32 %w3, 9;" + out32, []uint64{1}, 7},
		{"max.f32 NaN", "max.f32 %f3, %f0, %f1;" + outF32, []uint64{nan32, f32b(2)}, f32b(2)},
		{"min.f32 -0", "min.f32 %f3, %f0, %f1;" + outF32, []uint64{f32b(0), f32b(float32(math.Copysign(0, -1)))}, 0x80000000},
		{"neg.f32 0", "neg.f32 %f3, %f0;" + outF32, []uint64{f32b(0)}, 0x80000000},
		{"abs.f32 -0", "abs.f32 %f3, %f0;" + outF32, []uint64{0x80000000}, 0},
		{"add.rz.f32", "add.rz.f32 %f3, %f0, %f1;" + outF32, []uint64{f32b(1), f32b(0x1p-25)}, f32b(1)},
		{"add.rp.f32", "add.rp.f32 %f3, %f0, %f1;" + outF32, []uint64{f32b(1), f32b(0x1p-25)}, f32b(1 + 0x1p-23)},
		{"add.ftz.f32 subnormal", "add.ftz.f32 %f3, %f0, %f1;" + outF32, []uint64{1, 0}, 0},
		{"add.f32 subnormal", "add.f32 %f3, %f0, %f1;" + outF32, []uint64{1, 0}, 1},
		{"mul.sat.f32", "mul.sat.f32 %f3, %f0, %f1;" + outF32, []uint64{f32b(3), f32b(2)}, f32b(1)},
		{"fma.rn.f32 single rounding", "fma.rn.f32 %f3, %f0, %f1, %f2;" + outF32,
			[]uint64{f32b(1 + 0x1p-12), f32b(1 - 0x1p-12), f32b(-1)}, f32b(-0x1p-24)},
		{"div.rn.f32", "div.rn.f32 %f3, %f0, %f1;" + outF32, []uint64{f32b(1), f32b(3)}, f32b(float32(1.0) / 3)},
		{"div.rn.f32 by zero", "div.rn.f32 %f3, %f0, %f1;" + outF32, []uint64{f32b(-1), f32b(0)}, f32b(float32(math.Inf(-1)))},
		{"sqrt.rn.f32", "sqrt.rn.f32 %f3, %f0;" + outF32, []uint64{f32b(2)}, f32b(float32(math.Sqrt(2)))},
		{"rcp.rn.f32", "rcp.rn.f32 %f3, %f0;" + outF32, []uint64{f32b(4)}, f32b(0.25)},
		{"ex2.approx.ftz.f32", "ex2.approx.ftz.f32 %f3, %f0;" + outF32, []uint64{f32b(3)}, f32b(8)},
		{"lg2.approx.f32", "lg2.approx.f32 %f3, %f0;" + outF32, []uint64{f32b(8)}, f32b(3)},
		{"add.f64", "add.f64 %d3, %d0, %d1;" + outF64, []uint64{f64b(0.1), f64b(0.2)}, f64b(math.FMA(0.1, 1, 0.2))},
		{"fma.rn.f64", "fma.rn.f64 %d3, %d0, %d1, %d2;" + outF64, []uint64{f64b(0.1), f64b(10), f64b(-1)}, f64b(math.FMA(0.1, 10, -1))},
		{"div.rm.f64", "div.rm.f64 %d3, %d0, %d1;" + outF64, []uint64{f64b(1), f64b(3)}, f64b(1.0 / 3)},
		{"div.rp.f64", "div.rp.f64 %d3, %d0, %d1;" + outF64, []uint64{f64b(1), f64b(3)}, f64b(math.Nextafter(1.0/3, 1))},
		{"cvt.rni.s32.f32", "cvt.rni.s32.f32 %w3, %f0;" + out32, []uint64{f32b(2.5)}, 2},
		{"cvt.rzi.s32.f32", "cvt.rzi.s32.f32 %w3, %f0;" + out32, []uint64{f32b(-2.7)}, m32(-2)},
		{"cvt.rmi.s32.f32", "cvt.rmi.s32.f32 %w3, %f0;" + out32, []uint64{f32b(-2.2)}, m32(-3)},
		{"cvt.rzi.u32.f32 negative", "cvt.rzi.u32.f32 %w3, %f0;" + out32, []uint64{f32b(-5)}, 0},
		{"cvt.rzi.s32.f32 NaN", "cvt.rzi.s32.f32 %w3, %f0;" + out32, []uint64{nan32}, 0},
		{"cvt.rzi.s32.f32 saturates", "cvt.rzi.s32.f32 %w3, %f0;" + out32, []uint64{f32b(3e9)}, math.MaxInt32},
		{"cvt.rni.f32.f32", "cvt.rni.f32.f32 %f3, %f0;" + outF32, []uint64{f32b(2.5)}, f32b(2)},
		{"cvt.sat.f32.f32", "cvt.sat.f32.f32 %f3, %f0;" + outF32, []uint64{f32b(-3)}, f32b(0)},
		{"cvt.rn.f32.s32", "cvt.rn.f32.s32 %f3, %w0;" + outF32, []uint64{m32(-16777217)}, f32b(-16777216)},
		{"cvt.rz.f32.f64", "cvt.rz.f32.f64 %f3, %d0;" + outF32, []uint64{f64b(1 + 0x1p-30)}, f32b(1)},
		{"cvt.rp.f32.f64", "cvt.rp.f32.f64 %f3, %d0;" + outF32, []uint64{f64b(1 + 0x1p-30)}, f32b(1 + 0x1p-23)},
		{"cvt.rz.f32.u64", "cvt.rz.f32.u64 %f3, %x0;" + outF32, []uint64{1<<24 + 1}, f32b(1 << 24)},
		{"cvt.rp.f32.s64", "cvt.rp.f32.s64 %f3, %x0;" + outF32, []uint64{1<<24 + 1}, f32b(1<<24 + 2)},
		{"div.full.f32", "div.full.f32 %f3, %f0, %f1;" + outF32, []uint64{f32b(1), f32b(4)}, f32b(0.25)},
		{"fma.rz.f64", "fma.rz.f64 %d3, %d0, %d1, %d2;" + outF64, []uint64{f64b(1), f64b(1), f64b(0x1p-60)}, f64b(1)},
		{"fma.rp.f64", "fma.rp.f64 %d3, %d0, %d1, %d2;" + outF64, []uint64{f64b(1), f64b(1), f64b(0x1p-60)}, f64b(1 + 0x1p-52)},
		{"mul.f32 NaN canonical", "mul.f32 %f3, %f0, %f1;" + outF32, []uint64{f32b(0), f32b(float32(math.Inf(1)))}, 0x7fffffff},
		{"cvt.f64.f32", "cvt.f64.f32 %d3, %f0;" + outF64, []uint64{f32b(0.1)}, f64b(float64(float32(0.1)))},
		{"cvt.s64.s32", "cvt.s64.s32 %x3, %w0;", []uint64{m32(-1)}, neg(-1)},
		{"cvt.u64.u32", "cvt.u64.u32 %x3, %w0;", []uint64{m32(-1)}, 0xffffffff},
		{"cvt.s32.s8", "cvt.s32.s8 %w3, %w0;" + out32, []uint64{0x80}, m32(-128)},
		{"cvt.u16.u32", "cvt.u16.u32 %w3, %w0;" + out32, []uint64{0x12345}, 0x2345},
		{"shf.l.wrap", "shf.l.wrap.b32 %w3, %w0, %w1, %w2;" + out32, []uint64{0x80000000, 0x1, 33}, 0x3},
		{"shf.l.clamp", "shf.l.clamp.b32 %w3, %w0, %w1, %w2;" + out32, []uint64{0x12345678, 0x9abcdef0, 40}, 0x12345678},
		{"shf.r.wrap", "shf.r.wrap.b32 %w3, %w0, %w1, %w2;" + out32, []uint64{0x1, 0x3, 1}, 0x80000000},
		{"shf.r.clamp", "shf.r.clamp.b32 %w3, %w0, %w1, %w2;" + out32, []uint64{0x1, 0x3, 32}, 0x3},
		{"prmt.b32", "prmt.b32 %w3, %w0, %w1, %w2;" + out32, []uint64{0x44332211, 0x88776655, 0x7340}, 0x88445511},
		{"prmt.b32 sign", "prmt.b32 %w3, %w0, %w1, %w2;" + out32, []uint64{0x000080ff, 0, 0x1a98}, 0x8000ffff},
		{"mov.b64 pack", "mov.b64 %x3, {%w0, %w1};", []uint64{1, 2}, 0x0000000200000001},
		{"mov.b64 unpack", "mov.b64 {%w5, %w6}, %x0;\n\tsub.u32 %w3, %w6, %w5;" + out32, []uint64{0x0000000900000002}, 7},
		{"selp.f64", "setp.gt.f64 %p1, %d0, %d1;\n\tselp.f64 %d3, %d0, %d1, %p1;" + outF64, []uint64{f64b(2), f64b(1)}, f64b(2)},
	}
	for _, c := range cases {
		got, err := runSnippet(t, c.body, 1, c.in...)
		require.NoError(t, err, c.name)
		assert.Equal(t, c.want, got[0], "%s: got %#x want %#x", c.name, got[0], c.want)
	}
}

func TestWarpInstructions(t *testing.T) {
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
		{"shfl.up", "shfl.sync.up.b32 %w3|%p1, %w4, 1, 0, -1;" + out32,
			lanes(func(l uint64) uint64 { return max(l, 1) - 1 + b2u(l == 0)*0 })},
		{"shfl.up predicate", "shfl.sync.up.b32 %w3|%p1, %w4, 1, 0, -1;\n\tselp.u32 %w3, 1, 0, %p1;" + out32,
			lanes(func(l uint64) uint64 { return b2u(l >= 1) })},
		{"shfl.idx", "shfl.sync.idx.b32 %w3, %w4, 5, 31, -1;" + out32, lanes(func(uint64) uint64 { return 5 })},
		{"shfl.idx width 8", "shfl.sync.idx.b32 %w3, %w4, 2, 0x181f, -1;" + out32, lanes(func(l uint64) uint64 { return l&^7 | 2 })},
		{"shfl.bfly", "shfl.sync.bfly.b32 %w3, %w4, 1, 31, -1;" + out32, lanes(func(l uint64) uint64 { return l ^ 1 })},
		{"shfl.down width 16", "shfl.sync.down.b32 %w3, %w4, 1, 0x101f, -1;" + out32,
			lanes(func(l uint64) uint64 {
				if l%16 == 15 {
					return l
				}
				return l + 1
			})},
		// A source lane that takes no part reads 0, as on the H200.
		{"shfl.down from lanes outside the mask", "setp.ge.u32 %p2, %w4, 8;\n\tmov.u32 %w3, 99;\n\t@%p2 bra END;\n\tshfl.sync.down.b32 %w3, %w4, 16, 31, 0xff;\nEND:" + out32,
			lanes(func(l uint64) uint64 { return b2u(l >= 8) * 99 })},
		{"vote.ballot", "setp.lt.u32 %p1, %w4, 5;\n\tvote.sync.ballot.b32 %w3, %p1, -1;" + out32, lanes(func(uint64) uint64 { return 0x1f })},
		{"vote.all", "setp.lt.u32 %p1, %w4, 32;\n\tvote.sync.all.pred %p2, %p1, -1;\n\tselp.u32 %w3, 1, 0, %p2;" + out32, lanes(func(uint64) uint64 { return 1 })},
		{"vote.any", "setp.eq.u32 %p1, %w4, 31;\n\tvote.sync.any.pred %p2, %p1, -1;\n\tselp.u32 %w3, 1, 0, %p2;" + out32, lanes(func(uint64) uint64 { return 1 })},
		{"vote.uni", "setp.eq.u32 %p1, %w4, 31;\n\tvote.sync.uni.pred %p2, %p1, -1;\n\tselp.u32 %w3, 1, 0, %p2;" + out32, lanes(func(uint64) uint64 { return 0 })},
		{"vote with a partial mask", "setp.lt.u32 %p1, %w4, 5;\n\tsetp.ge.u32 %p2, %w4, 16;\n\t@%p2 bra END;\n\tvote.sync.ballot.b32 %w3, %p1, 0xffff;\nEND:" + out32,
			lanes(func(l uint64) uint64 { return b2u(l < 16) * 0x1f })},
		{"activemask after exits", "setp.ge.u32 %p2, %w4, 8;\n\t@%p2 bra END;\n\tbar.warp.sync 0xff;\n\tactivemask.b32 %w3;\nEND:" + out32,
			lanes(func(l uint64) uint64 { return b2u(l < 8) * 0xff })},
		{"atom.shared", "st.shared.u32 [cnt], 0;\n\tbar.sync 0;\n\tatom.shared.add.u32 %w5, [cnt], 1;\n\tbar.sync 0;\n\tld.shared.u32 %w3, [cnt];" + out32,
			lanes(func(uint64) uint64 { return 32 })},
		{"atom.shared.cas", "st.shared.u32 [cnt], 0;\n\tbar.sync 0;\n\tatom.shared.cas.b32 %w3, [cnt], %w4, 100;" + out32,
			lanes(func(l uint64) uint64 { return b2u(l == 0)*0 + b2u(l > 0)*100 })},
		{"atom.shared.max", "st.shared.u32 [cnt], 0;\n\tbar.sync 0;\n\tatom.shared.max.s32 %w5, [cnt], %w4;\n\tbar.sync 0;\n\tld.shared.u32 %w3, [cnt];" + out32,
			lanes(func(uint64) uint64 { return 31 })},
		{"atom.shared.inc", "st.shared.u32 [cnt], 0;\n\tbar.sync 0;\n\tatom.shared.inc.u32 %w5, [cnt], 9;\n\tbar.sync 0;\n\tld.shared.u32 %w3, [cnt];" + out32,
			lanes(func(uint64) uint64 { return 32 % 10 })},
	}
	for _, c := range cases {
		got, err := runSnippet(t, c.body, 32)
		require.NoError(t, err, c.name)
		assert.Equal(t, c.want, got, c.name)
	}
}

func TestNotInMemberMask(t *testing.T) {
	_, err := runSnippet(t, "vote.sync.ballot.b32 %w3, %p1, 0x2;", 32)
	var f *Fault
	require.True(t, errors.As(err, &f), "%v", err)
	assert.Equal(t, CodeIllegalInstr, f.Code)
}

func TestStackOverflow(t *testing.T) {
	src := header + `.func (.param .b32 r) down(.param .b32 x)
{
	.reg .b32 %r<3>;
	.local .align 4 .b8 depot[256];
	ld.param.b32 %r1, [x];
	{
	.param .b32 a;
	st.param.b32 [a], %r1;
	.param .b32 b;
	call.uni (b), down, (a);
	ld.param.b32 %r2, [b];
	}
	st.param.b32 [r], %r2;
	ret;
}
.visible .entry k()
{
	.reg .b32 %r<3>;
	{
	.param .b32 a;
	st.param.b32 [a], 1;
	.param .b32 b;
	call.uni (b), down, (a);
	}
	ret;
}
`
	p, err := Compile(src)
	require.NoError(t, err)
	err = p.Kernels["k"].Run(&Launch{Grid: dim(1), Block: dim(2), Mem: newMem()})
	var f *Fault
	require.True(t, errors.As(err, &f), "%v", err)
	assert.Equal(t, CodeLaunchFailed, f.Code)
	assert.Contains(t, f.Msg, "overflow")
}

// TestExitInCallThenNextBlock: a thread that exits inside a .func leaves
// nothing behind for the same thread of the next block.
func TestExitInCallThenNextBlock(t *testing.T) {
	src := header + `.func quit()
{
	exit;
}
.visible .entry k(.param .u64 out)
{
	.reg .pred %p<2>;
	.reg .b32 %r<6>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %ctaid.x;
	mov.u32 %r3, %ntid.x;
	mad.lo.s32 %r4, %r2, %r3, %r1;
	and.b32 %r5, %r4, 1;
	setp.eq.u32 %p1, %r5, 1;
	@!%p1 bra STORE;
	call.uni quit, ();
STORE:
	mul.wide.u32 %rd2, %r4, 4;
	add.s64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r4;
	ret;
}
`
	p, err := Compile(src)
	require.NoError(t, err)
	mem := newMem()
	out := mem.i32s(make([]int32, 8))
	k := p.Kernels["k"]
	buf := make([]byte, 8)
	binary.LittleEndian.PutUint64(buf, out)
	require.NoError(t, k.Run(&Launch{Grid: dim(2), Block: dim(4), Params: buf, Mem: mem}))
	// Block 1 has ctaid 1: its threads 4 and 6 store; odd ones exit.
	assert.Equal(t, []int32{0, 0, 2, 0, 4, 0, 6, 0}, mem.readI32(out, 8))
}
