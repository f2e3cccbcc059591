package callback_test

import (
	"io"
	"os"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/internal/callback"
)

// captureStderr runs f with os.Stderr redirected and returns what it wrote.
func captureStderr(t *testing.T, f func()) string {
	t.Helper()
	r, w, err := os.Pipe()
	require.NoError(t, err)
	old := os.Stderr
	os.Stderr = w
	done := make(chan []byte)
	go func() {
		b, _ := io.ReadAll(r)
		done <- b
	}()
	defer func() { os.Stderr = old }()
	f()
	w.Close()
	return string(<-done)
}

func TestDispatchRunsOnceAndRemoves(t *testing.T) {
	base := callback.Pending()
	n := 0
	id := callback.Register(func() { n++ })
	assert.NotZero(t, id)
	assert.Equal(t, base+1, callback.Pending())
	assert.True(t, callback.Dispatch(id))
	assert.Equal(t, 1, n)
	assert.Equal(t, base, callback.Pending())

	var ok bool
	out := captureStderr(t, func() { ok = callback.Dispatch(id) })
	assert.False(t, ok, "an id runs at most once")
	assert.Equal(t, 1, n)
	assert.Contains(t, out, "unknown id")
}

func TestUnregister(t *testing.T) {
	ran := false
	id := callback.Register(func() { ran = true })
	assert.True(t, callback.Unregister(id))
	assert.False(t, callback.Unregister(id))
	captureStderr(t, func() { assert.False(t, callback.Dispatch(id)) })
	assert.False(t, ran)
}

func TestIDsAreDistinct(t *testing.T) {
	a := callback.Register(func() {})
	b := callback.Register(func() {})
	assert.NotEqual(t, a, b)
	callback.Unregister(a)
	callback.Unregister(b)
}

func TestNilFuncIsANoop(t *testing.T) {
	id := callback.Register(nil)
	assert.True(t, callback.Dispatch(id))
}

func TestPanicIsRecoveredAndReported(t *testing.T) {
	id := callback.Register(func() { panic("kernel finished badly") })
	var ok bool
	out := captureStderr(t, func() { ok = callback.Dispatch(id) })
	assert.True(t, ok)
	assert.Contains(t, out, "panicked: kernel finished badly")
	assert.Contains(t, out, "registry_test.go", "the report carries the stack")
}

// A million callbacks: registrations and dispatches never run out of
// anything and leave the registry empty.
func TestMillionCallbacks(t *testing.T) {
	base := callback.Pending()
	var sum atomic.Int64
	const n = 1_000_000
	ids := make([]uintptr, 0, 1000)
	for i := 0; i < n; i += len(ids) {
		ids = ids[:0]
		for j := 0; j < 1000; j++ {
			v := int64(i + j)
			ids = append(ids, callback.Register(func() { sum.Add(v) }))
		}
		for _, id := range ids {
			if !callback.Dispatch(id) {
				t.Fatalf("id %d did not run", id)
			}
		}
	}
	assert.Equal(t, int64(n)*(n-1)/2, sum.Load())
	assert.Equal(t, base, callback.Pending())
}

func TestConcurrentRegisterDispatch(t *testing.T) {
	base := callback.Pending()
	var wg sync.WaitGroup
	var count atomic.Int64
	ids := make(chan uintptr, 1024)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 5000; i++ {
				ids <- callback.Register(func() { count.Add(1) })
			}
		}()
	}
	var dwg sync.WaitGroup
	for g := 0; g < 4; g++ {
		dwg.Add(1)
		go func() {
			defer dwg.Done()
			for id := range ids {
				callback.Dispatch(id)
			}
		}()
	}
	wg.Wait()
	close(ids)
	dwg.Wait()
	assert.Equal(t, int64(8*5000), count.Load())
	assert.Equal(t, base, callback.Pending())
}
