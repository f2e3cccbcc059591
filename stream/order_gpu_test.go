package stream_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/conformance"
	"github.com/nocgo/cuda/cudatest"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/stream"
)

// TestOrderGPU proves on the real GPU that an event orders two streams: in
// each of 50 rounds stream A copies 256 MiB device to device and then sets a
// flag to the round number; B waits on an event recorded after that and
// copies the flag back, which must be the round number. A missing or broken
// wait reads the previous round's flag, since the copy takes far longer
// than B's small copy. It runs with A owned, and with A a foreign stream
// created by raw driver calls (as another library would) and wrapped.
func TestOrderGPU(t *testing.T) {
	drv := conformance.Open(t, cudatest.RealBackend(t)) // CheckStreamOrder makes raw calls on it
	ctx := conformance.Primary(t, drv)

	const size, rounds = 256 << 20, 50
	b, err := stream.New(ctx, stream.Options{Flags: stream.NonBlocking})
	require.NoError(t, err)
	defer b.Close()

	t.Run("owned", func(t *testing.T) {
		a, err := stream.New(ctx, stream.Options{Flags: stream.NonBlocking})
		require.NoError(t, err)
		defer a.Close()
		conformance.CheckStreamOrder(t, a, b, size, rounds)
	})
	t.Run("foreign", func(t *testing.T) {
		var h uintptr
		bound(t, ctx, func(api backend.API) {
			var r error
			h, r = api.StreamCreateWithPriority(backend.StreamNonBlocking, 0)
			require.NoError(t, r)
		})
		defer func() { require.NoError(t, rawAPI(t, ctx).StreamDestroy(h)) }()
		a, err := stream.Wrap(ctx, h)
		require.NoError(t, err)
		defer a.Close()
		conformance.CheckStreamOrder(t, a, b, size, rounds)
	})
}
