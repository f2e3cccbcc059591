package ptxexec

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sameValuePTX: every thread stores VALUE at s[tid/32] (with no barrier
// or collective between the lanes' stores), then, where READ is the
// barrier and load below, reads it back after a barrier into out[tid].
const sameValuePTX = `.version 7.8
.target sm_90
.address_size 64

.visible .entry store_warp(.param .u64 out)
{
	.reg .b32 %r<8>;
	.reg .b64 %rd<8>;
	.shared .align 4 .b8 s[8];
	mov.u32 %r1, %tid.x;
	shr.u32 %r2, %r1, 5;
	shl.b32 %r3, %r2, 2;
	mov.u32 %r4, s;
	add.u32 %r5, %r4, %r3;
	st.shared.u32 [%r5], VALUE;
	READ
	ld.param.u64 %rd1, [out];
	cvta.to.global.u64 %rd2, %rd1;
	mul.wide.u32 %rd3, %r1, 4;
	add.s64 %rd4, %rd2, %rd3;
	st.global.u32 [%rd4], %r6;
	ret;
}
`

// TestSharedRaceSameValue: lanes of a warp that store the same value at
// one address (s[warp] = sum, llm.c's layernorm_forward_kernel5) race on
// nothing the kernel can observe; lanes that store different values do,
// reported also when the stores are the block's last shared access.
func TestSharedRaceSameValue(t *testing.T) {
	const read = "bar.sync 0;\n\tld.shared.u32 %r6, [%r5];"
	cases := []struct {
		name, value, read string
		race              bool
		want              func(tid uint32) int32
	}{
		{"same value, read after a barrier", "%r2", read, false, func(tid uint32) int32 { return int32(tid / 32) }},
		{"same value, last access", "%r2", "mov.u32 %r6, 0;", false, func(uint32) int32 { return 0 }},
		{"lane ids, read after a barrier", "%r1", read, true, func(tid uint32) int32 { return int32(tid/32*32 + 31) }},
		{"lane ids, last access", "%r1", "mov.u32 %r6, 0;", true, func(uint32) int32 { return 0 }},
	}
	for _, c := range cases {
		src := strings.NewReplacer("VALUE", c.value, "READ", c.read).Replace(sameValuePTX)
		p, err := Compile(src)
		require.NoError(t, err, c.name)
		mem := newMem()
		mem.bind(p)
		out := mem.alloc(4 * 64)
		k := p.Kernels["store_warp"]
		rec := &raceRecorder{}
		require.NoError(t, k.Run(&Launch{Grid: dim(1), Block: dim(64), Params: params(t, k, out), Mem: mem, SMs: 132, Observe: rec, SharedRaces: true}), c.name)
		got := mem.readI32(out, 64)
		for tid := range uint32(64) {
			require.Equal(t, c.want(tid), got[tid], "%s: thread %d", c.name, tid)
		}
		if !c.race {
			assert.Empty(t, rec.races, c.name)
			continue
		}
		require.Len(t, rec.races, 1, "%s: one pair of instructions", c.name)
		r := rec.races[0]
		assert.Equal(t, Write, r.First.Kind, c.name)
		assert.Equal(t, Write, r.Second.Kind, c.name)
		assert.Contains(t, r.Second.Instr, "st.shared.u32", c.name)
		assert.Equal(t, uint32(0), r.Offset&^3, "%s: warp 0's word", c.name)
		assert.Equal(t, [3]uint32{0, 0, 0}, r.First.Thread, c.name)
		assert.Equal(t, [3]uint32{1, 0, 0}, r.Second.Thread, c.name)
	}
}
