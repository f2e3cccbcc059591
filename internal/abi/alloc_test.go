package abi

import (
	"runtime"
	"testing"
)

// allocated returns the bytes f allocates on the heap.
func allocated(f func()) uint64 {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// memoryBound is the most a parser may allocate for an input of n bytes:
// 20 times the input (issue 21's bound), plus room for an error value.
func memoryBound(n int) uint64 { return 20*uint64(n) + 1024 }

// checkMemory fails t when parse allocates more than memoryBound of the
// input's size.
func checkMemory(t testing.TB, what string, input []byte, parse func()) {
	t.Helper()
	if got := allocated(parse); got > memoryBound(len(input)) {
		t.Fatalf("%s allocated %d bytes for a %d-byte input (at most %d)", what, got, len(input), memoryBound(len(input)))
	}
}
