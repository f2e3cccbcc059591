package nccl_test

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/nccl"
)

// A panic or runtime.Goexit inside Group's function ends NCCL's group on
// that OS thread before the panic reaches the caller: the next Group on the
// same thread issues its collectives.
func TestGroupEndsOnPanicAndGoexit(t *testing.T) {
	r := newRanks(t, fakeDriver(t, 2), 2)
	allReduce := func(b []*memory.Buffer[float32]) error {
		for i, c := range r.comms {
			if err := nccl.AllReduce(c, r.streams[i], b[i], b[i], nccl.Sum); err != nil {
				return err
			}
		}
		return nil
	}
	// check runs a Group after end, on the same OS thread, and checks that
	// its collective ran.
	check := func(what string) {
		b := []*memory.Buffer[float32]{upload(t, r.ctxs[0], []float32{1}), upload(t, r.ctxs[1], []float32{2})}
		require.NoError(t, nccl.Group(func() error { return allReduce(b) }), what)
		r.sync(t)
		for i := range b {
			assert.Equal(t, []float32{3}, download(t, b[i]), "%s: the next group's collective on rank %d", what, i)
		}
	}

	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for _, nested := range []bool{false, true} {
		var recovered any
		func() {
			defer func() { recovered = recover() }()
			b := []*memory.Buffer[float32]{zeros[float32](t, r.ctxs[0], 1), zeros[float32](t, r.ctxs[1], 1)}
			_ = nccl.Group(func() error {
				if nested {
					return nccl.Group(func() error {
						_ = allReduce(b)
						panic("boom")
					})
				}
				_ = allReduce(b)
				panic("boom")
			})
		}()
		assert.Equal(t, "boom", recovered, "the panic goes on to the caller")
		r.sync(t)
		check("after a panic")
	}

	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread() // the thread stays this goroutine's while its defers run
		defer check("after runtime.Goexit")
		b := []*memory.Buffer[float32]{zeros[float32](t, r.ctxs[0], 1), zeros[float32](t, r.ctxs[1], 1)}
		_ = nccl.Group(func() error {
			_ = allReduce(b)
			runtime.Goexit()
			return nil
		})
		t.Error("Group returned after its function called runtime.Goexit")
	}()
	<-done
}
