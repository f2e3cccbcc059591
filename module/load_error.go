package module

import (
	"fmt"
	"strings"
)

// LoadError is an image the driver refused at load or link time, with
// what its JIT compiler or linker said: Log is the error log (for PTX, the
// ptxas messages with line numbers; for a link, the unresolved or
// duplicate symbols), Info the informational log. It wraps the driver's
// Result (ErrInvalidPTX, ErrInvalidImage, ErrNoBinaryForGPU, ...), so
// errors.Is works on it.
type LoadError struct {
	What string // the image or inputs, such as "PTX image (812 bytes)"
	Call string // the driver call that failed, such as "cuModuleLoadDataEx"
	Log  string // the JIT's or linker's error log
	Info string // the JIT's or linker's info log
	Err  error  // the driver's error
}

// Error returns what failed, the driver's error and the whole error log.
func (e *LoadError) Error() string {
	if e == nil {
		return "module.LoadError: nil"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s: %v", e.What, e.Call, e.Err)
	if log := strings.TrimSpace(e.Log); log != "" {
		b.WriteString(":\n")
		b.WriteString(log)
	}
	return b.String()
}

// Unwrap returns the driver's error.
func (e *LoadError) Unwrap() error {
	if e == nil {
		return nil
	}
	return e.Err
}
