package fake

import (
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
)

// within runs fn on a goroutine with its OS thread locked and fails the test,
// instead of hanging, when fn has not returned after d.
func within(t *testing.T, d time.Duration, what string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		fn()
	}()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("%s: still blocked after %v", what, d)
	}
}

// onDevice makes device dev's primary context current on the calling
// (locked) thread and creates a stream with flags there. The backends of
// these tests are dropped, not torn down, so that a failure does not hang
// in a cleanup.
func onDevice(t *testing.T, b *fakeBackend, dev int, flags uint32) uintptr {
	t.Helper()
	ctx, err := b.DevicePrimaryCtxRetain(dev)
	require.NoError(t, err)
	require.NoError(t, b.CtxSetCurrent(ctx))
	s, err := b.StreamCreateWithPriority(flags, 0)
	require.NoError(t, err)
	return s
}

// A host callback blocked on stream A must not stall synchronising or
// querying a stream that does not depend on it, on the same device or on
// another one.
func TestBlockedHostFuncDoesNotStallOtherStreams(t *testing.T) {
	b := newBackend(Devices(2))
	require.NoError(t, b.Init(0))
	release := make(chan struct{})
	entered := make(chan struct{})
	var a uintptr
	syncA := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		a = onDevice(t, b, 0, 0)
		if err := b.LaunchHostFunc(a, func() { close(entered); <-release }); err != nil {
			syncA <- err
			return
		}
		syncA <- b.StreamSynchronize(a)
	}()
	defer close(release)
	select {
	case <-entered:
	case err := <-syncA:
		t.Fatalf("stream A finished early: %v", err)
	case <-time.After(5 * time.Second):
		t.Fatal("callback on A never started")
	}

	within(t, 5*time.Second, "other device", func() {
		s := onDevice(t, b, 1, 0)
		ran := false
		require.NoError(t, b.LaunchHostFunc(s, func() { ran = true }))
		require.NoError(t, b.StreamSynchronize(s))
		require.True(t, ran)
		require.NoError(t, b.LaunchHostFunc(s, func() {}))
		for b.StreamQuery(s) == driver.ErrNotReady {
		}
		require.NoError(t, b.StreamQuery(s))
	})
	within(t, 5*time.Second, "same device, non-blocking stream", func() {
		s := onDevice(t, b, 0, backend.StreamNonBlocking)
		ran := false
		require.NoError(t, b.LaunchHostFunc(s, func() { ran = true }))
		require.NoError(t, b.StreamSynchronize(s))
		require.True(t, ran)
		// A's callback is still running: A is not ready, and asking does
		// not wait for it.
		require.Equal(t, driver.ErrNotReady, b.StreamQuery(a))
	})
	select {
	case err := <-syncA:
		t.Fatalf("stream A finished while its callback was blocked: %v", err)
	default:
	}
	release <- struct{}{}
	select {
	case err := <-syncA:
		require.NoError(t, err)
	case <-time.After(5 * time.Second):
		t.Fatal("stream A never finished")
	}
}

// A host callback on stream A that waits for a host callback on an
// independent stream B must not deadlock: B progresses while A waits. The
// fake is lazy, so A runs when a goroutine forces it (here one that
// synchronises A); the driver may run host functions of independent streams
// one after the other, and so may the fake when one goroutine forces both.
func TestHostFuncWaitingForAnotherStream(t *testing.T) {
	for _, flags := range []uint32{0, backend.StreamNonBlocking} {
		b := newBackend(Devices(2))
		require.NoError(t, b.Init(0))
		var order []string
		within(t, 5*time.Second, "A waits for B", func() {
			a := onDevice(t, b, 0, flags)
			sb := onDevice(t, b, 0, flags)
			for _, final := range []func() error{
				func() error { return b.StreamSynchronize(sb) },
				b.CtxSynchronize,
			} {
				signal, entered := make(chan struct{}), make(chan struct{})
				require.NoError(t, b.LaunchHostFunc(a, func() {
					close(entered)
					<-signal
					order = append(order, "A")
				}))
				require.NoError(t, b.LaunchHostFunc(sb, func() {
					order = append(order, "B")
					close(signal)
				}))
				errA := make(chan error, 1)
				go func() { errA <- b.StreamSynchronize(a) }()
				<-entered
				require.NoError(t, final())
				require.NoError(t, <-errA)
			}
		})
		require.Equal(t, []string{"B", "A", "B", "A"}, order)
	}
}
