//go:build linux && (amd64 || arm64)

package symtab

import (
	"errors"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/internal/dl"
	"github.com/nocgo/cuda/loader"
)

const (
	tsymGetpid = iota
	tsymMissing
	tnumSyms
)

var tlibcNames = [tnumSyms]string{tsymGetpid: "getpid", tsymMissing: "cuMissingEntryPoint"}

// libcTable is a lazy table over libc, counting how often each symbol is
// resolved.
func libcTable(t testing.TB) (*Table, *[tnumSyms]atomic.Int32) {
	lib := openTestLibc(t)
	var calls [tnumSyms]atomic.Int32
	tab := New(tnumSyms, func(i int) (uintptr, error) {
		calls[i].Add(1)
		return lib.Symbol(tlibcNames[i])
	})
	return tab, &calls
}

func TestTableResolvesLazilyOnce(t *testing.T) {
	tab, calls := libcTable(t)
	assert.Equal(t, tnumSyms, tab.Len())
	assert.False(t, tab.Resolved(tsymGetpid))
	assert.Zero(t, calls[tsymGetpid].Load(), "nothing is resolved before first use")

	for i := 0; i < 10; i++ {
		p, err := tab.Get(tsymGetpid)
		require.NoError(t, err)
		assert.Equal(t, uintptr(os.Getpid()), dl.Call0(p))
	}
	assert.True(t, tab.Resolved(tsymGetpid))
	assert.Equal(t, int32(1), calls[tsymGetpid].Load())
}

func TestTableMissingSymbolKeepsItsError(t *testing.T) {
	tab, calls := libcTable(t)
	_, err1 := tab.Get(tsymMissing)
	_, err2 := tab.Get(tsymMissing)
	var serr *loader.SymbolError
	require.ErrorAs(t, err1, &serr)
	assert.Equal(t, "cuMissingEntryPoint", serr.Symbol)
	assert.Same(t, err1, err2)
	assert.Equal(t, int32(1), calls[tsymMissing].Load())
	assert.False(t, tab.Resolved(tsymMissing))

	// The other symbols are unaffected.
	p, err := tab.Get(tsymGetpid)
	require.NoError(t, err)
	assert.NotZero(t, p)
}

func TestTableConcurrentFirstUse(t *testing.T) {
	tab, _ := libcTable(t)
	var wg sync.WaitGroup
	ptrs := make([]uintptr, 32)
	for g := range ptrs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ptrs[g], _ = tab.Get(tsymGetpid)
		}()
	}
	wg.Wait()
	for _, p := range ptrs {
		assert.Equal(t, ptrs[0], p)
		assert.NotZero(t, p)
	}
}

func TestTableNilAddressIsAnError(t *testing.T) {
	tab := New(1, func(int) (uintptr, error) { return 0, nil })
	_, err := tab.Get(0)
	var serr *loader.SymbolError
	assert.ErrorAs(t, err, &serr)

	want := errors.New("boom")
	tab = New(1, func(int) (uintptr, error) { return 0, want })
	_, err = tab.Get(0)
	assert.ErrorIs(t, err, want)
}

// The fast path, a resolved symbol looked up and called, allocates nothing.
func TestTableFastPathDoesNotAllocate(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool (used by purego) drop items, which allocates")
	}
	tab, _ := libcTable(t)
	_, err := tab.Get(tsymGetpid)
	require.NoError(t, err)
	pid := uintptr(os.Getpid())
	allocs := testing.AllocsPerRun(1000, func() {
		p, err := tab.Get(tsymGetpid)
		if err != nil || dl.Call0(p) != pid {
			t.Fatal("getpid through the table failed")
		}
	})
	assert.Zero(t, allocs)
}

func BenchmarkTableGet(b *testing.B) {
	tab, _ := libcTable(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := tab.Get(tsymGetpid); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkTableGetAndCall(b *testing.B) {
	tab, _ := libcTable(b)
	b.ReportAllocs()
	for b.Loop() {
		p, _ := tab.Get(tsymGetpid)
		dl.Call0(p)
	}
}

// openTestLibc opens the C library through the loader, as if it were
// libcuda.
func openTestLibc(t testing.TB) *loader.Library {
	t.Helper()
	if !dl.Supported {
		t.Skip("run-time loading is not built for this platform")
	}
	t.Setenv("NOCGO_CUDA_LIBCUDA", "libc.so.6")
	lib, err := loader.Open(loader.CUDA)
	require.NoError(t, err)
	return lib
}

// A missing entry point's error names it and the version that has it: a
// CUDA version as the SymbolError's Since (needs nil), or the library's own
// numbering through needs.
func TestInLibraryNamesTheVersion(t *testing.T) {
	lib := openTestLibc(t)
	entries := []Entry{{Name: "getpid"}, {Name: "cuMissingEntryPoint", Since: 12030}, {Name: "ncclMissing"}}
	tab := InLibrary(lib, entries, nil)
	p, err := tab.Get(0)
	require.NoError(t, err)
	assert.NotZero(t, dl.Call0(p))
	_, err = tab.Get(1)
	var se *loader.SymbolError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, 12030, se.Since)
	assert.Contains(t, err.Error(), "symbol cuMissingEntryPoint (CUDA 12.3 and newer) not found")

	tab = InLibrary(lib, []Entry{{Name: "ncclMissing", Since: 21400}, {Name: "ncclOld"}}, func(since int) error {
		return errors.New("needs NCCL " + strconv.Itoa(since))
	})
	_, err = tab.Get(0)
	require.ErrorAs(t, err, &se)
	assert.Zero(t, se.Since)
	assert.Contains(t, err.Error(), "symbol ncclMissing not found")
	assert.Contains(t, err.Error(), ": needs NCCL 21400")
	_, err = tab.Get(1)
	assert.NotContains(t, err.Error(), "needs", "no since: the loader's reason")
}
