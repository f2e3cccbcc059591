//go:build linux && (amd64 || arm64)

package dl

// Trampolines and Lean tell the tests which call path this build has.
const (
	Trampolines = trampolinesBuilt
	Lean        = leanBuilt
)
