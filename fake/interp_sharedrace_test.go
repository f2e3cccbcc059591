package fake

import (
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/nocgo/cuda/conformance"
	"github.com/nocgo/cuda/fake/internal/ptxexec"
)

// raceLog is a ptxexec.SharedRaceObserver that counts global accesses and
// keeps the shared-memory races it is told of.
type raceLog struct {
	mu      sync.Mutex
	globals int
	races   []ptxexec.SharedRace
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
}

func describeRace(r ptxexec.SharedRace) string {
	side := func(a ptxexec.SharedAccess) string {
		return fmt.Sprintf("%s by thread %v at ptx line %d (%s:%d) %s", a.Kind, a.Thread, a.Line, a.File, a.FileLine, a.Instr)
	}
	return fmt.Sprintf("block %v shared offset %d: %s, then %s", r.Block, r.Offset, side(r.First), side(r.Second))
}
