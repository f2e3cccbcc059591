package core

import (
	"errors"
	"fmt"
	"reflect"

	"github.com/nocgo/cuda/driver/backend"
)

// Provided returns the library that c's backend provides through the
// optional interface P (backend.BLASProvider, backend.FFTProvider, ...):
// open(p) opens it (CUBLAS, CUFFT). A backend without P is op's error
// wrapping errors.ErrUnsupported that names what ("cuBLAS") and P; a
// library that cannot be opened is op's error wrapping open's.
func Provided[P, L any](op string, c *Context, what string, open func(P) (L, error)) (L, error) {
	var none L
	p, ok := c.API.(P)
	if !ok {
		return none, fmt.Errorf("%s: this backend has no %s (%v): %w", op, what, reflect.TypeFor[P](), errors.ErrUnsupported)
	}
	l, err := open(p)
	if err != nil {
		return none, fmt.Errorf("%s: %w", op, err)
	}
	return l, nil
}

// OpenQueue returns the Queue of an open *stream.Stream, or op's error:
// one wrapping ErrInvalidValue for a nil or zero stream, ErrClosed for a
// closed one.
func OpenQueue[P queueLinked[T], T any](op string, s P) (*Queue, error) {
	q := QueueOf(s)
	if q == nil {
		return nil, fmt.Errorf("%s: nil or zero stream: %w", op, backend.ErrInvalidValue)
	}
	if err := q.Hold.Check(q.What); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	return q, nil
}
