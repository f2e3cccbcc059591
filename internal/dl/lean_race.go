//go:build linux && (amd64 || arm64) && !nocgo_syscalln && race

package dl

// Under the race detector the LeanCallN functions go through runtime.cgocall
// (Call0 ... Call3), whose racereleasemerge/raceacquire give the detector its
// happens-before edge through C.

const leanBuilt = false

// LeanCall0 calls fn(); under -race it is Call0.
//
//go:nosplit
func LeanCall0(fn uintptr) uintptr { return Call0(fn) }

// LeanCall1 calls fn(a1); under -race it is Call1.
//
//go:nosplit
func LeanCall1(fn, a1 uintptr) uintptr { return Call1(fn, a1) }

// LeanCall2 calls fn(a1, a2); under -race it is Call2.
//
//go:nosplit
func LeanCall2(fn, a1, a2 uintptr) uintptr { return Call2(fn, a1, a2) }

// LeanCall3 calls fn(a1, a2, a3); under -race it is Call3.
//
//go:nosplit
func LeanCall3(fn, a1, a2, a3 uintptr) uintptr { return Call3(fn, a1, a2, a3) }
