package core

import "github.com/nocgo/cuda/driver/backend"

// ErrInvalidInput is driver.ErrInvalidInput (see there): the error of a
// check made before the driver is called, which matches
// backend.ErrInvalidValue without printing it.
var ErrInvalidInput error = invalidInput{}

type invalidInput struct{}

func (invalidInput) Error() string {
	return "invalid argument (refused by the library, not by the driver)"
}

// Is reports the match with backend.ErrInvalidValue.
func (invalidInput) Is(target error) bool { return target == error(backend.ErrInvalidValue) }

// As sets a *backend.Result to backend.ErrInvalidValue.
func (invalidInput) As(target any) bool {
	if r, ok := target.(*backend.Result); ok {
		*r = backend.ErrInvalidValue
		return true
	}
	return false
}
