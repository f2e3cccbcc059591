package ptxexec

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// flagHandoff is a kernel of 64 threads: thread 32 (warp 1) writes data
// and then sets a flag with SETFLAG; thread 0 (warp 0) spins on the flag
// with SPIN, then reads data and stores it to out. READY is how thread 0
// waits: the spin, or nothing.
const flagHandoff = header + `.visible .entry flag_handoff(.param .u64 out)
{
	.reg .pred %p<4>;
	.reg .b32 %r<8>;
	.reg .b64 %rd<4>;
	.shared .align 4 .b32 data;
	.shared .align 4 .b32 flag;
	mov.u32 %r1, %tid.x;
	setp.eq.u32 %p1, %r1, 32;
	@!%p1 bra SKIPW;
	st.shared.u32 [data], 42;
	SETFLAG;
SKIPW:
	setp.ne.u32 %p2, %r1, 0;
	@%p2 bra DONE;
SPIN:
	SPINLOAD;
	setp.eq.u32 %p3, %r3, 0;
	@%p3 bra SPIN;
	ld.shared.u32 %r4, [data];
	ld.param.u64 %rd1, [out];
	cvta.to.global.u64 %rd1, %rd1;
	st.global.u32 [%rd1], %r4;
DONE:
	ret;
}
`

// TestSharedRacesStrongAccesses: a flag handed over with strong accesses
// (an atomic or a volatile store, a volatile or acquire load: a software
// barrier such as cooperative groups' multi-warp tile sync, or a lock) is
// no race, and the data it guards is ordered by it; the same handover
// with a plain (weak) load or store of the flag is a race on the flag.
func TestSharedRacesStrongAccesses(t *testing.T) {
	cases := []struct {
		setFlag, spinLoad string
		races             bool
	}{
		{"atom.shared.or.b32 %r2, [flag], 1", "ld.volatile.shared.u32 %r3, [flag]", false},
		{"atom.shared.exch.b32 %r2, [flag], 1", "ld.acquire.cta.shared.u32 %r3, [flag]", false},
		{"st.volatile.shared.u32 [flag], 1", "ld.volatile.shared.u32 %r3, [flag]", false},
		{"st.release.cta.shared.u32 [flag], 1", "atom.shared.or.b32 %r3, [flag], 0", false},
		{"atom.shared.or.b32 %r2, [flag], 1", "ld.shared.u32 %r3, [flag]", true},
		{"st.shared.u32 [flag], 1", "ld.volatile.shared.u32 %r3, [flag]", true},
	}
	for _, c := range cases {
		src := strings.NewReplacer("SETFLAG", c.setFlag, "SPINLOAD", c.spinLoad).Replace(flagHandoff)
		p, err := Compile(src)
		require.NoError(t, err)
		mem := newMem()
		out := mem.alloc(4)
		k := p.Kernels["flag_handoff"]
		rec := &raceRecorder{}
		require.NoError(t, k.Run(&Launch{Grid: dim(1), Block: dim(64), Params: params(t, k, out), Mem: mem, SMs: 132, Observe: rec, SharedRaces: true}))
		assert.Equal(t, []int32{42}, mem.readI32(out, 1), "%s / %s", c.setFlag, c.spinLoad)
		if !c.races {
			assert.Empty(t, rec.races, "%s / %s: strong accesses order the handover", c.setFlag, c.spinLoad)
			continue
		}
		require.NotEmpty(t, rec.races, "%s / %s: a weak access of the flag races", c.setFlag, c.spinLoad)
		onFlag := false
		for _, r := range rec.races {
			onFlag = onFlag || r.Offset&^3 == 4
		}
		assert.True(t, onFlag, "%s / %s: a race on the flag: %+v", c.setFlag, c.spinLoad, rec.races)
	}
}
