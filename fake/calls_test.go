package fake

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/internal/abi"
)

func TestCallsCountsEveryCallIncludingFailures(t *testing.T) {
	b := bound(t, CountCalls(), FailNth("cuMemAlloc_v2", 2, driver.ErrOutOfMemory))
	calls := b.calls()
	assert.Equal(t, int64(1), calls["cuInit"])
	assert.Equal(t, int64(1), calls["cuDevicePrimaryCtxRetain"])
	assert.Equal(t, int64(1), calls["cuCtxPushCurrent"])
	assert.NotContains(t, calls, "cuMemAlloc", "entry points not called are left out")

	p, err := b.MemAlloc(16)
	require.NoError(t, err)
	_, err = b.MemAlloc(16)
	require.ErrorIs(t, err, driver.ErrOutOfMemory)
	require.NoError(t, b.MemFree(p))
	require.ErrorIs(t, b.MemFree(p), driver.ErrInvalidValue, "a call that fails on its arguments")

	calls = b.calls()
	assert.Equal(t, int64(2), calls["cuMemAlloc"], "the failed call counts, under the base name")
	assert.Equal(t, int64(2), calls["cuMemFree"])

	calls["cuMemAlloc"] = 99
	assert.Equal(t, int64(2), b.calls()["cuMemAlloc"], "a snapshot")
}

func TestCallsWithoutCountCalls(t *testing.T) {
	b := bound(t, FailNth("cuMemAlloc", 5, driver.ErrOutOfMemory))
	p, err := b.MemAlloc(16)
	require.NoError(t, err)
	require.NoError(t, b.MemFree(p))
	assert.Equal(t, map[string]int64{"cuMemAlloc": 1}, b.calls(), "only what FailNth names")
	assert.Empty(t, newBackend().calls())
}

func TestCallsCountsNVRTCAndUninitialised(t *testing.T) {
	b := newBackend(CountCalls())
	_, err := b.MemAlloc(16)
	require.ErrorIs(t, err, driver.ErrNotInitialized)
	_, err = b.DriverGetVersion()
	require.NoError(t, err)
	nv, err := b.NVRTC()
	require.NoError(t, err)
	_, _, err = nv.Version()
	require.NoError(t, err)
	prog, err := nv.CreateProgram("", "empty.cu", nil, nil)
	require.NoError(t, err)
	require.NoError(t, nv.Compile(prog, nil))
	require.NoError(t, nv.DestroyProgram(prog))
	assert.Equal(t, map[string]int64{
		"cuMemAlloc":          1,
		"cuDriverGetVersion":  1,
		"nvrtcVersion":        1,
		"nvrtcCreateProgram":  1,
		"nvrtcCompileProgram": 1,
		"nvrtcDestroyProgram": 1,
	}, b.calls())
}

// A missing symbol (an older driver) never reaches the entry point: it is not
// counted, as FailNth does not count it.
func TestCallsSkipsMissingSymbols(t *testing.T) {
	b := bound(t, CountCalls(), DriverVersion(11000))
	_, err := b.MemAllocAsync(16, 0)
	require.Error(t, err)
	assert.NotContains(t, b.calls(), "cuMemAllocAsync")
}

// The count is FailNth's: FailNth(op, k) with k = Calls()[op] after a run
// fails the last call of op in the same run.
func TestCallsMatchesFailNth(t *testing.T) {
	run := func(b *fakeBackend) error {
		var first error
		keep := func(err error) {
			if first == nil {
				first = err
			}
		}
		for range 3 {
			p, err := b.MemAlloc(64)
			keep(err)
			if err == nil {
				keep(b.MemsetD8(p, 1, 64))
				keep(b.MemFree(p))
			}
		}
		return first
	}
	clean := bound(t, CountCalls())
	require.NoError(t, run(clean))
	calls := clean.calls()
	require.Equal(t, int64(3), calls["cuMemAlloc"])
	require.Equal(t, int64(3), calls["cuMemsetD8"])
	for _, op := range []string{"cuMemAlloc", "cuMemsetD8", "cuMemFree"} {
		b := bound(t, CountCalls(), FailNth(op, int(calls[op]), driver.ErrUnknown))
		require.ErrorIs(t, run(b), driver.ErrUnknown, op)
		assert.Equal(t, calls[op], b.calls()[op], op)
	}
}

func TestEntryPointsAreKnown(t *testing.T) {
	eps := EntryPoints()
	require.True(t, sort.StringsAreSorted(eps))
	seen := map[string]bool{}
	for _, op := range eps {
		require.False(t, seen[op], "duplicate %s", op)
		seen[op] = true
		assert.Equal(t, op, baseName(op), "a base name")
		ep, ok := abi.Lookup(op)
		if assert.True(t, ok, "%s is an entry point of the real backends", op) {
			assert.False(t, ep.Inner, "%s is called inside other entry points only", op)
		}
	}
	b := newBackend(CountCalls())
	assert.Len(t, b.faults, len(eps)+len(nvmlEntryPoints), "CountCalls counts each of them, and the fake NVML's")
}

// TestEntryPointsMatchSources keeps entryPoints equal to the names the
// fake's sources pass to fault (through enter, syncOp, asyncOp, the NVRTC
// enter or directly), so that CountCalls counts every entry point. The
// sources name entry points by package abi's constants only, never by
// string literals, so that a typo fails to compile.
func TestEntryPointsMatchSources(t *testing.T) {
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	for _, room := range []string{"nvrtc", "vmm", "nccl", "graphs"} { // the rooms whose entry points the core forwards, hands out or promotes
		in, err := filepath.Glob("internal/" + room + "/*.go")
		require.NoError(t, err)
		files = append(files, in...)
	}
	call := `(?:\benter\(|\benterTeardown\(|\bfault\(|\bsyncOp\(|\basyncOp\(|\bsymbol\(|const op = )`
	named := regexp.MustCompile(call + `abi\.([A-Za-z0-9_]+)`)
	literal := regexp.MustCompile(call + `"`)
	indirect := regexp.MustCompile(`\b(?:enter|fault)\(([a-z][A-Za-z0-9_]*)\)`)
	want := map[string]bool{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") || f == "calls.go" {
			continue
		}
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, m := range named.FindAllStringSubmatch(string(src), -1) {
			name := strings.ToLower(m[1][:1]) + m[1][1:] // abi's constant CuMemAlloc is "cuMemAlloc"
			_, ok := abi.Lookup(name)
			require.True(t, ok, "%s: abi.%s is no entry point", f, m[1])
			if m[0] != "symbol(abi."+m[1] {
				want[name] = true
			}
		}
		assert.Empty(t, literal.FindAllString(string(src), -1), "%s: name entry points by abi's constants", f)
		for _, m := range indirect.FindAllStringSubmatch(string(src), -1) {
			// Only the helpers that take op from a constant at their call
			// sites (matched above), or a const op, may pass a variable.
			assert.Equal(t, "op", m[1], "%s: fault/enter with %s: add its names to the check", f, m[0])
		}
	}
	var got []string
	for op := range want {
		got = append(got, op)
	}
	sort.Strings(got)
	assert.Equal(t, got, EntryPoints())
}
