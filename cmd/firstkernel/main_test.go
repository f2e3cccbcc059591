package main

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMain makes the test binary, re-executed by parent, a measured run.
func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		main()
		return
	}
	os.Exit(m.Run())
}

// On the fake, the program runs its warming child and two measured ones
// (the test binary re-executed as the children), each hitting the cache,
// and prints every phase with its median.
func TestFirstKernelOnTheFake(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	if os.Getenv("NOCGO_CUDA_TEST_EXEC") != "" {
		// Under an emulator (.ci/dl-arm64.sh) the program's children, its
		// own binary run again, would need the emulator too: it times
		// native processes only.
		t.Skip("the program re-executes itself natively; not under an emulator")
	}
	var out bytes.Buffer
	require.NoError(t, parent(2, true, "", &out))
	s := out.String()
	for _, ph := range []string{"exec->main", "load+init", "device", "primaryctx", "compile(hit)", "alloc+in", "launch", "out"} {
		assert.Equal(t, 2, strings.Count(s, "PHASE go "+ph+" "), "phase %s in both runs:\n%s", ph, s)
	}
	assert.Contains(t, s, "median of 2 fresh processes")
	assert.NotContains(t, s, "PHASE c ")
}

func TestParentRefusesNoRounds(t *testing.T) {
	assert.Error(t, parent(0, true, "", &bytes.Buffer{}))
}

func TestCollectAndMedian(t *testing.T) {
	samples := map[string]map[string][]float64{}
	order := collect([]byte("PHASE go a 1.0 ms\nnoise\nPHASE c a 3.0 ms\nPHASE go b 2.5 ms\nPHASE go a x ms\n"), samples, nil)
	order = collect([]byte("PHASE go a 2.0 ms\n"), samples, order)
	assert.Equal(t, []string{"a", "b"}, order)
	assert.Equal(t, []float64{1, 2}, samples["go"]["a"])
	assert.Equal(t, 1.5, median(samples["go"]["a"]))
	assert.Equal(t, 3.0, median(samples["c"]["a"]))
	assert.Equal(t, 2.0, median([]float64{3, 1, 2}))
}
