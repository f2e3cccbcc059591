//go:build linux && (amd64 || arm64)

package callback_test

import (
	"runtime"
	"sync/atomic"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/internal/callback"
	"github.com/nocgo/cuda/internal/dl"
)

// The driver runs host functions on a thread of its own, one Go never
// created. pthread_create starts such a thread on the trampoline (a
// void *(*)(void *) start routine is called exactly like a CUhostFn; its
// return value is ignored here).
func TestTrampolineFromForeignThread(t *testing.T) {
	tr := trampoline(t)
	h, err := dl.Open("libc.so.6")
	require.NoError(t, err)
	create, err := dl.Sym(h, "pthread_create")
	require.NoError(t, err)
	join, err := dl.Sym(h, "pthread_join")
	require.NoError(t, err)

	var n atomic.Int64
	for i := 0; i < 50; i++ {
		id := callback.Register(func() { n.Add(1) })
		var tid uint64
		r := dl.Call4(create, uintptr(unsafe.Pointer(&tid)), 0, tr, id)
		require.Zero(t, int32(r), "pthread_create")
		r = dl.Call2(join, uintptr(tid), 0)
		require.Zero(t, int32(r), "pthread_join")
	}
	assert.Equal(t, int64(50), n.Load())
}

// TestGoexitOnForeignThread: a callback that calls runtime.Goexit (as
// t.FailNow and testify's require do) on a thread the Go runtime did not
// create ends only itself; the process and later callbacks go on.
func TestGoexitOnForeignThread(t *testing.T) {
	tr := trampoline(t)
	h, err := dl.Open("libc.so.6")
	require.NoError(t, err)
	create, err := dl.Sym(h, "pthread_create")
	require.NoError(t, err)
	join, err := dl.Sym(h, "pthread_join")
	require.NoError(t, err)

	var before, after atomic.Bool
	for _, fn := range []func(){
		func() { before.Store(true); runtime.Goexit() },
		func() { after.Store(true) },
	} {
		id := callback.Register(fn)
		var tid uint64
		r := dl.Call4(create, uintptr(unsafe.Pointer(&tid)), 0, tr, id)
		require.Zero(t, int32(r), "pthread_create")
		r = dl.Call2(join, uintptr(tid), 0)
		require.Zero(t, int32(r), "pthread_join")
	}
	assert.True(t, before.Load())
	assert.True(t, after.Load(), "the process goes on after a Goexit")
}
