package fake_test

import (
	"strings"
	"testing"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/stream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// makeLeaks leaks a stream, an event and a buffer, each made on a line of
// its own, through the user packages (many frames of the library between
// this function and the fake).
func makeLeaks(t *testing.T, ctx *driver.Context) {
	_, err := stream.New(ctx, stream.Options{})
	require.NoError(t, err)
	_, err = stream.NewEvent(ctx, stream.EventOptions{})
	require.NoError(t, err)
	_, err = memory.Alloc[float32](ctx, 16)
	require.NoError(t, err)
}

// Every leaked object names the user's line that made it, never a frame of
// the library or of package testing.
func TestLeaksNameTheCallSite(t *testing.T) {
	drv := fake.New()
	dev, err := drv.Device(0)
	require.NoError(t, err)
	ctx, err := dev.PrimaryContext()
	require.NoError(t, err)
	makeLeaks(t, ctx)
	want := map[string]string{
		"primary context": "leak_site_test.go:33 (TestLeaksNameTheCallSite)",
		"stream":          "leak_site_test.go:19 (makeLeaks)",
		"event":           "leak_site_test.go:21 (makeLeaks)",
		"device memory":   "leak_site_test.go:23 (makeLeaks)",
	}
	leaks := fake.Of(drv).Leaks()
	require.Len(t, leaks, len(want), "%v", leaks)
	for _, l := range leaks {
		assert.Equal(t, want[string(l.Kind)], l.Site, "%s", l)
		assert.True(t, strings.HasSuffix(l.String(), ", made at "+l.Site), "%s", l)
	}
}

// A goroutine of the user's is a call site like any other; the frames of
// the runtime above it are never named.
func TestLeakSiteInAGoroutine(t *testing.T) {
	drv := fake.New()
	dev, err := drv.Device(0)
	require.NoError(t, err)
	ctx, err := dev.PrimaryContext()
	require.NoError(t, err)
	done := make(chan error)
	go func() {
		_, err := stream.New(ctx, stream.Options{})
		done <- err
	}()
	require.NoError(t, <-done)
	var site string
	for _, l := range fake.Of(drv).Leaks() {
		if l.Kind == "stream" {
			site = l.Site
		}
	}
	assert.Equal(t, "leak_site_test.go:60 (TestLeakSiteInAGoroutine.func1)", site)
}
