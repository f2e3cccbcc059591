package stream_test

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/stream"
)

// manualCallbacks is a fake whose host functions do not run with the
// stream: the test runs them, each on an ordinary goroutine, as the real
// backend's trampoline does (internal/callback), so that what the library
// knows of a callback does not rest on how the fake runs them.
type manualCallbacks struct {
	fake.Backend
	mu  sync.Mutex
	fns []func()
}

func (m *manualCallbacks) LaunchHostFunc(h uintptr, fn func()) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.fns = append(m.fns, fn)
	return nil
}

// run runs the queued host functions, each on a goroutine of its own, and
// waits for them.
func (m *manualCallbacks) run() {
	m.mu.Lock()
	fns := m.fns
	m.fns = nil
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, fn := range fns {
		wg.Go(fn)
	}
	wg.Wait()
}

// From inside a host callback, every call that would reach the driver, close
// an object or release a context fails with ErrNotPermitted and changes
// nothing; the same calls from other goroutines, while the callback runs,
// work.
func TestCallsFromCallbackRefused(t *testing.T) {
	api := &manualCallbacks{Backend: fake.NewBackend(fake.Devices(1))}
	drv, err := driver.New(api)
	require.NoError(t, err)
	dev, err := drv.Device(0)
	require.NoError(t, err)
	ctx, err := dev.PrimaryContext()
	require.NoError(t, err)
	s, err := stream.New(ctx, stream.Options{})
	require.NoError(t, err)
	legacy, err := stream.Legacy(ctx)
	require.NoError(t, err)
	ev, err := stream.NewEvent(ctx, stream.EventOptions{})
	require.NoError(t, err)

	inside := map[string]error{}
	var outside []error
	release := make(chan struct{})
	require.NoError(t, s.Callback(func() {
		// Another goroutine is not refused while this callback runs.
		done := make(chan struct{})
		go func() {
			defer close(done)
			o, err := stream.New(ctx, stream.Options{})
			outside = append(outside, err)
			if err == nil {
				outside = append(outside, o.Synchronize(), o.Close())
			}
			outside = append(outside, legacy.Synchronize())
		}()
		<-done
		_, err := stream.New(ctx, stream.Options{})
		inside["stream.New"] = err
		inside["Synchronize"] = s.Synchronize()
		_, inside["Query"] = s.Query()
		inside["Legacy.Synchronize"] = legacy.Synchronize()
		inside["Wait"] = s.Wait(ev)
		inside["Callback"] = s.Callback(func() {})
		inside["Close"] = s.Close()
		inside["Legacy.Close"] = legacy.Close()
		inside["Event.Close"] = ev.Close()
		inside["Context.Close"] = ctx.Close()
		inside["Context.Synchronize"] = ctx.Synchronize()
		close(release)
	}))
	go api.run()
	select {
	case <-release:
	case <-time.After(20 * time.Second):
		t.Fatal("the callback deadlocked")
	}
	for what, err := range inside {
		assert.ErrorIs(t, err, driver.ErrNotPermitted, "%s from a host callback", what)
	}
	for _, err := range outside {
		assert.NoError(t, err, "from another goroutine while a callback runs")
	}
	// Nothing was closed by the refused calls.
	assert.False(t, ctx.Closed())
	require.NoError(t, s.Synchronize())
	require.NoError(t, legacy.Synchronize())
	require.NoError(t, ev.Close())
	require.NoError(t, legacy.Close())
	require.NoError(t, s.Close())
	require.NoError(t, ctx.Close())
}
