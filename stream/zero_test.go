package stream_test

import (
	"testing"

	"github.com/nocgo/cuda/internal/zerotest"
	"github.com/nocgo/cuda/stream"
)

// Every method of every exported type, on a nil pointer and on a zero
// value, returns an error (or a zero answer) and never panics.
func TestZeroValuesNeverPanic(t *testing.T) {
	values := []any{
		(*stream.Stream)(nil), (*stream.Event)(nil), (*stream.CallbackPanicError)(nil),
		(*stream.Options)(nil), (*stream.WrapOptions)(nil), (*stream.EventOptions)(nil), stream.Flag(0), stream.EventFlag(0),
	}
	zerotest.Covers(t, ".", values...)
	zerotest.Methods(t, zerotest.Options{NilOK: []string{"CallbackPanicError.Unwrap"}}, values...)
}
