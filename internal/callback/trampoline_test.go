//go:build linux && (amd64 || arm64)

package callback_test

import (
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/internal/callback"
	"github.com/nocgo/cuda/internal/dl"
)

func trampoline(t *testing.T) uintptr {
	t.Helper()
	p, err := callback.Trampoline()
	require.NoError(t, err)
	require.NotZero(t, p)
	return p
}

// The trampoline is called from C the way the driver calls a CUhostFn:
// fn(userData), with the id as userData.
func TestTrampolineRunsTheRegisteredFunc(t *testing.T) {
	tr := trampoline(t)
	got := ""
	id := callback.Register(func() { got = "ran" })
	dl.Call1(tr, id)
	assert.Equal(t, "ran", got)
	assert.False(t, callback.Unregister(id), "the entry is gone once run")
}

func TestTrampolineIsOnePointer(t *testing.T) {
	assert.Equal(t, trampoline(t), trampoline(t))
}

// Far more callbacks than purego's ~2000 C callback slots go through the one
// trampoline.
func TestTrampolineManyCalls(t *testing.T) {
	tr := trampoline(t)
	var n atomic.Int64
	const calls = 20000
	for i := 0; i < calls; i++ {
		dl.Call1(tr, callback.Register(func() { n.Add(1) }))
	}
	assert.Equal(t, int64(calls), n.Load())
}

func TestTrampolineConcurrent(t *testing.T) {
	tr := trampoline(t)
	var n atomic.Int64
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 500; i++ {
				dl.Call1(tr, callback.Register(func() { n.Add(1) }))
			}
		}()
	}
	wg.Wait()
	assert.Equal(t, int64(8*500), n.Load())
}

// A panic in the function does not unwind into C: the trampoline returns
// normally and the panic is reported on stderr.
func TestTrampolineRecoversPanic(t *testing.T) {
	tr := trampoline(t)
	id := callback.Register(func() { panic("boom in host func") })
	out := captureStderr(t, func() { dl.Call1(tr, id) })
	assert.Contains(t, out, "boom in host func")

	ran := false
	dl.Call1(tr, callback.Register(func() { ran = true }))
	assert.True(t, ran, "the trampoline still works after a panic")
}
