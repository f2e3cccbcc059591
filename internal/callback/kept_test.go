package callback_test

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/nocgo/cuda/internal/callback"
)

// A kept function runs at every dispatch until Forget; then its id is
// unknown.
func TestKeptRunsUntilForgotten(t *testing.T) {
	base := callback.KeptCount()
	n := 0
	id := callback.Keep(func() { n++ })
	assert.NotZero(t, id)
	assert.Equal(t, base+1, callback.KeptCount())
	for range 3 {
		assert.True(t, callback.DispatchKept(id))
	}
	assert.Equal(t, 3, n)
	assert.True(t, callback.Forget(id))
	assert.False(t, callback.Forget(id))
	assert.Equal(t, base, callback.KeptCount())
	var ok bool
	out := captureStderr(t, func() { ok = callback.DispatchKept(id) })
	assert.False(t, ok)
	assert.Contains(t, out, "unknown id")
	assert.Equal(t, 3, n)
}

// A panic or runtime.Goexit in a kept function is contained, and the
// function stays kept.
func TestKeptPanicAndGoexitContained(t *testing.T) {
	calls := 0
	id := callback.Keep(func() {
		calls++
		if calls == 1 {
			panic("kept boom")
		}
		runtime.Goexit()
	})
	defer callback.Forget(id)
	out := captureStderr(t, func() {
		assert.True(t, callback.DispatchKept(id))
		assert.True(t, callback.DispatchKept(id))
	})
	assert.Contains(t, out, "kept boom")
	assert.Contains(t, out, "Goexit")
	assert.Equal(t, 2, calls)
	id2 := callback.Keep(nil)
	assert.True(t, callback.DispatchKept(id2), "a nil func is kept as a no-op")
	callback.Forget(id2)
}
