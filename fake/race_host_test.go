package fake

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver/backend"
)

// Page-locked host memory that two streams' copies reach while they run
// (a copy from it, by DMA, and a copy into it) races as device memory
// does; its bytes start written (the host writes them unseen), and with an
// event between the two nothing is reported.
func TestRacePinnedHostMemory(t *testing.T) {
	for _, ordered := range []bool{false, true} {
		b, got := raceBackend(t)
		ss := newStreams(t, b, backend.StreamNonBlocking, 2)
		h, err := b.MemHostAlloc(256, 0)
		require.NoError(t, err)
		p, q := alloc4K(t, b), alloc4K(t, b)
		require.NoError(t, b.MemsetD8(p, 1, 256))
		require.NoError(t, b.MemcpyHtoDAsync(q, h, 256, ss[0])) // reads h as it runs: no uninitialised read
		if ordered {
			require.NoError(t, recordAndWait(b, ss[0], ss[1]))
		}
		require.NoError(t, b.MemcpyDtoHAsync(h, p, 256, ss[1])) // writes h
		require.NoError(t, b.CtxSynchronize())
		if ordered {
			assert.Empty(t, *got)
		} else {
			require.Len(t, *got, 1, "%v", *got)
			assert.Equal(t, Race, (*got)[0].Kind)
			assert.Equal(t, uintptr(h), (*got)[0].Alloc, "the host buffer")
		}
		require.NoError(t, b.MemFreeHost(h))
	}
}

// Memory of another process's, mapped through IPC: the importer's own
// streams race on it as on its own memory; its bytes start written (the
// exporter writes them unseen).
func TestRaceIPCMapping(t *testing.T) {
	exporter := bound(t)
	p, err := exporter.MemAlloc(64)
	require.NoError(t, err)
	t.Cleanup(func() { exporter.MemFree(p) })
	h, err := exporter.IPCGetMemHandle(p)
	require.NoError(t, err)
	for _, ordered := range []bool{false, true} {
		var got []Hazard
		importer := newBackend(DetectRaces(func(h Hazard) { got = append(got, h) }))
		require.NoError(t, importer.Init(0))
		ctx, err := importer.CtxCreate(0, 0)
		require.NoError(t, err)
		q, err := importer.IPCOpenMemHandle(h, backend.IPCMemLazyEnablePeerAccess)
		require.NoError(t, err)
		ss := newStreams(t, importer, backend.StreamNonBlocking, 2)
		host := make([]byte, 64)
		require.NoError(t, importer.MemcpyDtoHAsync(unsafe.Pointer(&host[0]), q, 64, ss[0]))
		if ordered {
			require.NoError(t, recordAndWait(importer, ss[0], ss[1]))
		}
		require.NoError(t, importer.MemsetD8Async(q, 3, 64, ss[1]))
		require.NoError(t, importer.CtxSynchronize())
		if ordered {
			assert.Empty(t, got, "ordered, and the exporter's bytes count as written")
		} else {
			require.Len(t, got, 1, "%v", got)
			assert.Equal(t, Race, got[0].Kind)
		}
		for _, s := range ss {
			require.NoError(t, importer.StreamDestroy(s))
		}
		require.NoError(t, importer.IPCCloseMemHandle(q))
		require.NoError(t, importer.CtxDestroy(ctx))
	}
}
