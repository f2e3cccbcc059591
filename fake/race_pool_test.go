package fake

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver/backend"
)

// Stream-ordered pool memory: a use on another stream must be ordered
// after the cuMemAllocAsync (an event, a synchronize), and before the
// cuMemFreeAsync; whichever of the two the fake happens to run first.
func TestRacePoolAllocAsync(t *testing.T) {
	for _, tc := range []struct {
		name      string
		order     func(b *fakeBackend, alloc, use uintptr) error
		useFirst  bool // synchronize the using stream first
		wantRaces int
	}{
		{name: "unordered", wantRaces: 1},
		{name: "unordered, use run first", useFirst: true, wantRaces: 1},
		{name: "event", order: recordAndWait},
		{name: "event, use run first", order: recordAndWait, useFirst: true},
		{name: "host synchronize", order: func(b *fakeBackend, alloc, use uintptr) error { return b.StreamSynchronize(alloc) }},
		{name: "same stream", order: nil, wantRaces: -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, got := raceBackend(t)
			ss := newStreams(t, b, backend.StreamNonBlocking, 2)
			alloc, use := ss[0], ss[1]
			if tc.wantRaces < 0 {
				use = alloc
			}
			p, err := b.MemAllocAsync(256, alloc)
			require.NoError(t, err)
			if tc.order != nil {
				require.NoError(t, tc.order(b, alloc, use))
			}
			require.NoError(t, b.MemsetD8Async(p, 7, 256, use))
			first, second := alloc, use
			if tc.useFirst {
				first, second = use, alloc
			}
			require.NoError(t, b.StreamSynchronize(first))
			require.NoError(t, b.StreamSynchronize(second))
			require.NoError(t, b.MemFreeAsync(p, use))
			require.NoError(t, b.StreamSynchronize(use))
			if tc.wantRaces <= 0 {
				assert.Empty(t, *got)
				return
			}
			require.Len(t, *got, tc.wantRaces)
			h := (*got)[0]
			assert.Equal(t, Race, h.Kind)
			ops := []string{h.Current.Op, h.Previous.Op}
			assert.ElementsMatch(t, []string{"cuMemAllocAsync", "memset"}, ops)
			assert.Contains(t, []string{h.Current.Kind, h.Previous.Kind}, "allocation")
		})
	}
}

func recordAndWait(b *fakeBackend, before, after uintptr) error {
	e, err := b.EventCreate(backend.EventDisableTiming)
	if err != nil {
		return err
	}
	defer b.EventDestroy(e)
	if err := b.EventRecord(e, before); err != nil {
		return err
	}
	return b.StreamWaitEvent(after, e, 0)
}

// A read on another stream not ordered before the stream-ordered free
// races with it (the free writes the whole allocation).
func TestRacePoolFreeAsync(t *testing.T) {
	for _, ordered := range []bool{false, true} {
		b, got := raceBackend(t)
		ss := newStreams(t, b, backend.StreamNonBlocking, 2)
		p, err := b.MemAllocAsync(256, ss[0])
		require.NoError(t, err)
		require.NoError(t, b.MemsetD8Async(p, 7, 256, ss[0]))
		require.NoError(t, b.StreamSynchronize(ss[0]))
		host := make([]byte, 16)
		require.NoError(t, b.MemcpyDtoHAsync(unsafe.Pointer(&host[0]), p, 16, ss[1]))
		if ordered {
			require.NoError(t, recordAndWait(b, ss[1], ss[0]))
		}
		require.NoError(t, b.MemFreeAsync(p, ss[0]))
		require.NoError(t, b.StreamSynchronize(ss[1]))
		require.NoError(t, b.StreamSynchronize(ss[0]))
		if ordered {
			assert.Empty(t, *got, "the read is ordered before the free")
			continue
		}
		require.Len(t, *got, 1)
		assert.Equal(t, "cuMemFreeAsync", (*got)[0].Current.Op)
		assert.Equal(t, "memcpy DtoH", (*got)[0].Previous.Op)
	}
}
