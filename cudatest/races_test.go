package cudatest_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/cudatest"
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/stream"
)

// unorderedFillAndRead fills a buffer on one non-blocking stream and reads
// it back on another with nothing between: a race.
func unorderedFillAndRead(t *testing.T, drv *driver.Driver) {
	dev, err := drv.Device(0)
	require.NoError(t, err)
	ctx, err := dev.PrimaryContext()
	require.NoError(t, err)
	defer ctx.Close()
	a, err := stream.New(ctx, stream.Options{Flags: stream.NonBlocking})
	require.NoError(t, err)
	defer a.Close()
	b, err := stream.New(ctx, stream.Options{Flags: stream.NonBlocking})
	require.NoError(t, err)
	defer b.Close()
	buf, err := memory.FromSlice(ctx, make([]int32, 64))
	require.NoError(t, err)
	defer buf.Close()
	require.NoError(t, memory.Fill(a, buf, 7))
	out := make([]int32, 64)
	require.NoError(t, memory.CopyToHostAsync(b, out, buf))
	require.NoError(t, b.Synchronize())
	require.NoError(t, a.Synchronize())
}

func TestFakeFailsOnARace(t *testing.T) {
	r := &recorder{TB: t}
	drv := cudatest.Fake(r)
	unorderedFillAndRead(t, drv)
	r.mu.Lock()
	require.Len(t, r.errs, 1, "failed at once, while the test runs")
	r.mu.Unlock()
	assert.Contains(t, r.errs[0], "DATA RACE between CUDA streams")
	assert.Contains(t, r.errs[0], "memset")
	assert.Contains(t, r.errs[0], "memcpy DtoH")
	assert.Contains(t, r.errs[0], "cudatest_test.unorderedFillAndRead()", "the Go call sites")
	r.end()
	assert.Len(t, r.errs, 1, "not reported again at the end")
}

func TestFakeIgnoreRaces(t *testing.T) {
	r := &recorder{TB: t}
	drv := cudatest.Fake(r, fake.IgnoreRaces())
	unorderedFillAndRead(t, drv)
	r.end()
	assert.Empty(t, r.errs)
	assert.Nil(t, fake.Of(drv).Hazards())
}

func TestFakeHazardsTakenOnPurpose(t *testing.T) {
	var seen []fake.Hazard
	r := &recorder{TB: t}
	drv := cudatest.Fake(r, fake.DetectRaces(func(h fake.Hazard) { seen = append(seen, h) }))
	unorderedFillAndRead(t, drv)
	require.Len(t, seen, 1)
	assert.Len(t, fake.Of(drv).TakeHazards(), 1)
	r.end()
	assert.Empty(t, r.errs, "taken hazards do not fail the test")
}

func TestFakeHazardsLeftFailAtTheEnd(t *testing.T) {
	r := &recorder{TB: t}
	drv := cudatest.Fake(r, fake.DetectRaces(nil))
	unorderedFillAndRead(t, drv)
	assert.Empty(t, r.errs, "no report function: nothing at once")
	r.end()
	require.Len(t, r.errs, 1)
	assert.Contains(t, r.errs[0], "DATA RACE")
}

func TestRaceReporterAfterTheEndIsQuiet(t *testing.T) {
	r := &recorder{TB: t}
	races := cudatest.Races(r)
	drv := fake.New(races.Option())
	r.end()
	unorderedFillAndRead(t, drv)
	races.Check(fake.Of(drv))
	assert.Empty(t, r.errs, "t is not used once the test has ended")
}
