package ptx

import (
	"errors"
	"fmt"
)

// Error is PTX text that could not be read. Line counts from 1.
type Error struct {
	Line int
	Msg  string
	// Err is what kind of failure it is, where it has a kind: ErrNotPTX,
	// ErrLimit. Error unwraps to it.
	Err error
}

// Error returns "ptx: line N: message".
func (e *Error) Error() string { return fmt.Sprintf("ptx: line %d: %s", e.Line, e.Msg) }

// Unwrap returns e.Err.
func (e *Error) Unwrap() error { return e.Err }

var (
	// ErrNotPTX is wrapped by the *Error of text that does not begin with a
	// .version directive: not PTX at all (a driver calls it an invalid
	// image rather than invalid PTX).
	ErrNotPTX = errors.New("ptx: not PTX text")
	// ErrLimit is wrapped by the *Error of text that exceeds one of the
	// parser's bounds (MaxDepth, MaxOperands, MaxRegs, MaxVarSize,
	// MaxParamSize): refused before it could make the parser allocate
	// without bound.
	ErrLimit = errors.New("ptx: limit exceeded")
)

// Limits that keep hostile text from making the parser (or a decoder)
// allocate without bound.
const (
	// MaxDepth is the deepest nesting of braces: scopes in a body,
	// vector operands and initialisers together. Compilers nest a few
	// levels (NVRTC's call sequences open one scope each).
	MaxDepth = 256
	// MaxRegs is the most registers one declaration may declare.
	MaxRegs = 1 << 16
	// MaxVarSize is the largest variable, in bytes.
	MaxVarSize = 1 << 30
	// MaxOperands is the most operands of one instruction (a call's
	// argument list counts one operand per argument).
	MaxOperands = 1024
	// MaxAllocRatio bounds what the parser allocates on any input, as a
	// multiple of the input's size (plus a constant of AllocSlack bytes):
	// the shortest statements ("a;", an instruction of two bytes) cost the
	// most per byte.
	MaxAllocRatio = 64
	// AllocSlack is the constant part of the parser's allocation bound.
	AllocSlack = 64 << 10
)

// limitf returns an *Error wrapping ErrLimit.
func limitf(line int, format string, args ...any) error {
	return &Error{Line: line, Msg: fmt.Sprintf(format, args...), Err: ErrLimit}
}
