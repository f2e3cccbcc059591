package backend

import (
	"fmt"
	"strings"
)

// SymbolError reports an entry point missing from a backend's library: a
// driver older than the version that introduced it, for the real backend
// (where package loader, which resolves the symbols, names it
// loader.SymbolError) and for a fake configured with an older driver
// version alike. Callers test for it with errors.As.
type SymbolError struct {
	Library string // the library's path, or the fake's name for it
	Symbol  string // the symbol's base name, such as "cuFuncGetParamInfo"
	// Since is the CUDA version (1000*major + 10*minor) that introduced the
	// symbol, 0 when not known.
	Since int
	// Have is the CUDA version the loaded library supports, 0 when not known.
	Have int
	Err  error // the loader's or the driver's reason
}

// Error names the symbol, the library, and the versions when known. The
// text starts with "loader:", the part that resolves symbols.
func (e *SymbolError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "loader: symbol %s", e.Symbol)
	if e.Since > 0 {
		fmt.Fprintf(&b, " (CUDA %s and newer)", cudaVersion(e.Since))
	}
	fmt.Fprintf(&b, " not found in %s", e.Library)
	if e.Have > 0 {
		fmt.Fprintf(&b, " (supports CUDA %s)", cudaVersion(e.Have))
	}
	if e.Err != nil {
		fmt.Fprintf(&b, ": %v", e.Err)
	}
	return b.String()
}

// Unwrap returns the underlying reason.
func (e *SymbolError) Unwrap() error { return e.Err }

// cudaVersion formats a CUDA version number (1000*major + 10*minor) as
// "major.minor".
func cudaVersion(v int) string { return fmt.Sprintf("%d.%d", v/1000, v%1000/10) }
