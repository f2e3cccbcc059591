//go:build linux && (amd64 || arm64)

package loader_test

import (
	"errors"
	"os"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/internal/dl"
	"github.com/nocgo/cuda/loader"
)

const (
	symGetpid = iota
	symMissing
	numSyms
)

var libcNames = [numSyms]string{symGetpid: "getpid", symMissing: "cuMissingEntryPoint"}

// libcTable is a lazy table over libc, counting how often each symbol is
// resolved.
func libcTable(t testing.TB) (*loader.Table, *[numSyms]atomic.Int32) {
	lib := openLibc(t)
	var calls [numSyms]atomic.Int32
	tab := loader.NewTable(numSyms, func(i int) (uintptr, error) {
		calls[i].Add(1)
		return lib.Symbol(libcNames[i])
	})
	return tab, &calls
}

func TestTableResolvesLazilyOnce(t *testing.T) {
	tab, calls := libcTable(t)
	assert.Equal(t, numSyms, tab.Len())
	assert.False(t, tab.Resolved(symGetpid))
	assert.Zero(t, calls[symGetpid].Load(), "nothing is resolved before first use")

	for i := 0; i < 10; i++ {
		p, err := tab.Get(symGetpid)
		require.NoError(t, err)
		assert.Equal(t, uintptr(os.Getpid()), dl.Call0(p))
	}
	assert.True(t, tab.Resolved(symGetpid))
	assert.Equal(t, int32(1), calls[symGetpid].Load())
}

func TestTableMissingSymbolKeepsItsError(t *testing.T) {
	tab, calls := libcTable(t)
	_, err1 := tab.Get(symMissing)
	_, err2 := tab.Get(symMissing)
	var serr *loader.SymbolError
	require.ErrorAs(t, err1, &serr)
	assert.Equal(t, "cuMissingEntryPoint", serr.Symbol)
	assert.Same(t, err1, err2)
	assert.Equal(t, int32(1), calls[symMissing].Load())
	assert.False(t, tab.Resolved(symMissing))

	// The other symbols are unaffected.
	p, err := tab.Get(symGetpid)
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
			ptrs[g], _ = tab.Get(symGetpid)
		}()
	}
	wg.Wait()
	for _, p := range ptrs {
		assert.Equal(t, ptrs[0], p)
		assert.NotZero(t, p)
	}
}

func TestTableNilAddressIsAnError(t *testing.T) {
	tab := loader.NewTable(1, func(int) (uintptr, error) { return 0, nil })
	_, err := tab.Get(0)
	var serr *loader.SymbolError
	assert.ErrorAs(t, err, &serr)

	want := errors.New("boom")
	tab = loader.NewTable(1, func(int) (uintptr, error) { return 0, want })
	_, err = tab.Get(0)
	assert.ErrorIs(t, err, want)
}

// The fast path, a resolved symbol looked up and called, allocates nothing.
func TestTableFastPathDoesNotAllocate(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool (used by purego) drop items, which allocates")
	}
	tab, _ := libcTable(t)
	_, err := tab.Get(symGetpid)
	require.NoError(t, err)
	pid := uintptr(os.Getpid())
	allocs := testing.AllocsPerRun(1000, func() {
		p, err := tab.Get(symGetpid)
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
		if _, err := tab.Get(symGetpid); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkTableGetAndCall(b *testing.B) {
	tab, _ := libcTable(b)
	b.ReportAllocs()
	for b.Loop() {
		p, _ := tab.Get(symGetpid)
		dl.Call0(p)
	}
}
