package nvrtc

import "fmt"

// Core is what the room needs of the fake's core. Its methods take the
// core's lock themselves.
type Core interface {
	// Fault applies a FailNth rule to op: nil, or the rule's code as a
	// driver.Result.
	Fault(op string) error
	// Body describes the Go body registered under name, if there is one.
	Body(name string) (Body, bool)
	// EntryParams is the PTX .param list of the body of entry, found by
	// name or by the lowered name of a name expression ("" when none).
	EntryParams(entry string) string
	// Alias registers the body of expr under lowered too, unless a body of
	// that name exists or expr has none.
	Alias(expr, lowered string)
	// NewHandle returns a handle no object of any backend has had.
	NewHandle() uintptr
	// Site captures the call site that creates an object, for Leaks.
	Site() fmt.Stringer
}

// Body is what the pretend compiler needs to know of a Go body.
type Body struct {
	Err     error  // why the body cannot be a kernel (its shape), or nil
	Params  int    // its kernel parameters
	Lowered string // the PTX entry name: the name, mangled if an expression
}
