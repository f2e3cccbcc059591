//go:build linux && (amd64 || arm64)

package dl

// Lean tells the tests whether the lean calls skip entersyscall in this
// build.
const Lean = leanBuilt
