package conformance_test

import (
	"os"
	"testing"
	"time"

	"github.com/nocgo/cuda/conformance"
	"github.com/nocgo/cuda/cudatest/fakekernels"
	"github.com/nocgo/cuda/fake"
)

// TestRaceCost times the suite on the fake with the race detector off and
// on (streams and the checks inside launches), one after the other, for
// BENCHMARKS.md's rows; it runs only with NOCGO_CUDA_RACE_COST=1:
//
//	NOCGO_CUDA_RACE_COST=1 go test ./conformance -run TestRaceCost -v
func TestRaceCost(t *testing.T) {
	if os.Getenv("NOCGO_CUDA_RACE_COST") != "1" {
		t.Skip("set NOCGO_CUDA_RACE_COST=1 to time the suite with the race detector off and on")
	}
	opts := append([]fake.Option{fake.Devices(2)}, fakekernels.Options()...)
	times := map[string]time.Duration{}
	for _, m := range []struct {
		name string
		opts []fake.Option
	}{{"off", nil}, {"on", []fake.Option{fake.DetectRaces(nil)}}} {
		t.Run(m.name, func(t *testing.T) {
			start := time.Now()
			conformance.Run(t, fake.NewBackend(append(opts, m.opts...)...))
			times[m.name] = time.Since(start)
		})
	}
	t.Logf("the suite on the fake: detector off %v, on %v (%.2fx)", times["off"].Round(time.Millisecond), times["on"].Round(time.Millisecond),
		float64(times["on"])/float64(times["off"]))
}
