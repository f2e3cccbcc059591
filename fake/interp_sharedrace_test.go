package fake

import (
	"fmt"
	"sync"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/conformance"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/fake/internal/ptxexec"
)

// raceLog is a ptxexec.SharedRaceObserver that counts global accesses and
// keeps the shared-memory races it is told of.
type raceLog struct {
	mu          sync.Mutex
	globals     int
	races       []ptxexec.SharedRace
	globalRaces []ptxexec.GlobalRace
}

func (r *raceLog) GlobalRace(g ptxexec.GlobalRace) {
	r.mu.Lock()
	r.globalRaces = append(r.globalRaces, g)
	r.mu.Unlock()
}

func (r *raceLog) Global(ptxexec.Access) {
	r.mu.Lock()
	r.globals++
	r.mu.Unlock()
}

func (r *raceLog) SharedRace(s ptxexec.SharedRace) {
	r.mu.Lock()
	r.races = append(r.races, s)
	r.mu.Unlock()
}

// TestSamplesHaveNoSharedRaces runs NVIDIA's samples of the conformance
// suite (tree reductions with __syncthreads, warp-synchronous code with
// __syncwarp and shuffles, scans, histograms, transposes, cooperative
// groups, the LLM kernels) with the in-kernel shared-memory race checks
// on: they are correct, and nothing is reported. It needs libnvrtc (and
// CUDA's headers for the samples that include them).
func TestSamplesHaveNoSharedRaces(t *testing.T) {
	requireLibNVRTC(t)
	b := newBackend()
	log := &raceLog{}
	b.interp.races = log
	conformance.RunSamples(t, b)
	assert.NotZero(t, log.globals, "the samples ran in the interpreter, observed")
	for _, r := range log.races {
		t.Errorf("false positive: %s", describeRace(r))
	}
	for _, r := range log.globalRaces {
		t.Errorf("false positive in global memory at %#x: %+v then %+v", r.Addr, r.First, r.Second)
	}
}

func describeRace(r ptxexec.SharedRace) string {
	side := func(a ptxexec.SharedAccess) string {
		return fmt.Sprintf("%s by thread %v at ptx line %d (%s:%d) %s", a.Kind, a.Thread, a.Line, a.File, a.FileLine, a.Instr)
	}
	return fmt.Sprintf("block %v shared offset %d: %s, then %s", r.Block, r.Offset, side(r.First), side(r.Second))
}

// racyPTX: every thread stores its index to one shared word and thread 0
// reads it back with no barrier between: write/write races between lanes
// and between warps, and a write/read race.
const racyPTX = `.version 7.8
.target sm_80
.address_size 64

.visible .entry racy(
	.param .u64 racy_param_0
)
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<3>;
	.reg .b64 	%rd<3>;
	.shared .align 4 .u32 flag;

	ld.param.u64 	%rd1, [racy_param_0];
	cvta.to.global.u64 	%rd2, %rd1;
	mov.u32 	%r1, %tid.x;
	st.shared.u32 	[flag], %r1;
	setp.ne.s32 	%p1, %r1, 0;
	@%p1 bra 	$L__BB0_2;
	ld.shared.u32 	%r2, [flag];
	st.global.u32 	[%rd2], %r2;
$L__BB0_2:
	ret;
}
`

// TestSharedRaceReachesObserver: through the fake's launch path, a racy
// kernel's shared-memory race reaches the observer with both sides.
func TestSharedRaceReachesObserver(t *testing.T) {
	b := bound(t)
	log := &raceLog{}
	b.interp.races = log
	m, err := b.ModuleLoadData([]byte(racyPTX + "\x00"))
	require.NoError(t, err)
	f, err := b.ModuleGetFunction(m, "racy")
	require.NoError(t, err)
	p, err := b.MemAlloc(4)
	require.NoError(t, err)
	require.NoError(t, b.LaunchKernel(f, [3]uint32{1, 1, 1}, [3]uint32{64, 1, 1}, 0, backend.StreamNull, args(unsafe.Pointer(&p))))
	require.NoError(t, b.CtxSynchronize())
	require.NotEmpty(t, log.races)
	r := log.races[0]
	assert.Equal(t, ptxexec.Write, r.First.Kind)
	assert.Equal(t, ptxexec.Write, r.Second.Kind)
	assert.Equal(t, [3]uint32{1, 0, 0}, r.Second.Thread, "lane 1 overwrites lane 0's store: one warp, no __syncwarp between")
	assert.Contains(t, r.First.Instr, "st.shared.u32")
	require.NoError(t, b.MemFree(p))
	require.NoError(t, b.ModuleUnload(m))
}

// TestSharedRaceBecomesHazard: with the race detector on, a racy kernel
// run by the interpreter reports a SharedMemoryRace hazard naming both
// threads and instructions.
func TestSharedRaceBecomesHazard(t *testing.T) {
	var got []Hazard
	var mu sync.Mutex
	b := bound(t, DetectRaces(func(h Hazard) {
		mu.Lock()
		got = append(got, h)
		mu.Unlock()
	}))
	m, err := b.ModuleLoadData([]byte(racyPTX + "\x00"))
	require.NoError(t, err)
	f, err := b.ModuleGetFunction(m, "racy")
	require.NoError(t, err)
	p, err := b.MemAlloc(4)
	require.NoError(t, err)
	require.NoError(t, b.LaunchKernel(f, [3]uint32{1, 1, 1}, [3]uint32{64, 1, 1}, 0, backend.StreamNull, args(unsafe.Pointer(&p))))
	require.NoError(t, b.CtxSynchronize())
	mu.Lock()
	defer mu.Unlock()
	var shared []Hazard
	for _, h := range got {
		if h.Kind == SharedMemoryRace {
			shared = append(shared, h)
		}
	}
	require.NotEmpty(t, shared, "hazards: %v", got)
	h := shared[0]
	assert.Contains(t, h.Current.Kernel.Instr, "st.shared.u32")
	assert.Equal(t, [3]uint32{1, 0, 0}, h.Current.Kernel.Thread)
	assert.Equal(t, [3]uint32{0, 0, 0}, h.Previous.Kernel.Thread)
	require.NoError(t, b.MemFree(p))
	require.NoError(t, b.ModuleUnload(m))
}
