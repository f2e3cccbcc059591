package graph_test

import (
	"testing"

	"github.com/nocgo/cuda/graph"
	"github.com/nocgo/cuda/internal/zerotest"
)

// Every method of every exported type, on a nil pointer and on a zero
// value, returns an error (or a zero answer) and never panics.
func TestZeroValuesNeverPanic(t *testing.T) {
	values := []any{
		(*graph.Graph)(nil), (*graph.Exec)(nil), (*graph.Node)(nil), (*graph.UpdateError)(nil),
		(*graph.Condition)(nil), (*graph.Alloc)(nil), (*graph.HostPanicError)(nil),
		graph.Mode(0), graph.Status(0), graph.UpdateResult(0),
	}
	zerotest.Covers(t, ".", values...)
	zerotest.Methods(t, zerotest.Options{NilOK: []string{"UpdateError.Unwrap"}}, values...)
}
