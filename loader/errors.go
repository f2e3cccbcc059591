package loader

import (
	"fmt"
	"strings"

	"github.com/nocgo/cuda/driver/backend"
)

// Attempt is one candidate Open tried, and why it failed.
type Attempt struct {
	Path string // the candidate, as Candidates listed it
	Err  error  // the dlopen message, the file system error, or an ErrBadFile
}

// String returns "path: reason", without repeating the path when the reason
// already starts with it (as dlopen's messages do).
func (a Attempt) String() string {
	msg := a.Err.Error()
	msg = strings.TrimPrefix(msg, a.Path+": ")
	return a.Path + ": " + msg
}

// LibraryError reports a library that could not be opened from any
// candidate.
type LibraryError struct {
	Kind  Kind
	Env   bool      // the candidate came from Kind.EnvVar
	Tried []Attempt // every candidate, in the order tried
}

// Error lists the candidates and reasons on one line.
func (e *LibraryError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "loader: cannot open %s", e.Kind)
	if e.Env {
		fmt.Fprintf(&b, " from %s", e.Kind.EnvVar())
	} else {
		fmt.Fprintf(&b, " (set %s to its path)", e.Kind.EnvVar())
	}
	b.WriteString("; tried: ")
	for i, a := range e.Tried {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(a.String())
	}
	return b.String()
}

// Paths returns the candidates tried, in order.
func (e *LibraryError) Paths() []string {
	p := make([]string, len(e.Tried))
	for i, a := range e.Tried {
		p[i] = a.Path
	}
	return p
}

// Unwrap returns the reason of each attempt, so that errors.Is can look for
// a file system error among them.
func (e *LibraryError) Unwrap() []error {
	errs := make([]error, len(e.Tried))
	for i, a := range e.Tried {
		errs[i] = a.Err
	}
	return errs
}

// SymbolError reports an entry point missing from a loaded library. It is
// the seam's type ([backend.SymbolError]), so that the fake, which knows
// the seam and not the loader, reports a missing entry point as the real
// backend does.
type SymbolError = backend.SymbolError

// Version formats a CUDA version number (1000*major + 10*minor) as
// "major.minor": Version(12040) is "12.4".
func Version(v int) string {
	return fmt.Sprintf("%d.%d", v/1000, v%1000/10)
}
