package driver

import "github.com/nocgo/cuda/internal/core"

// ErrInvalidInput is wrapped by the errors of the checks this library makes
// before it calls the driver (a nil object, a size that does not
// fit, a launch configuration out of range): the input is one the driver
// would refuse with CUDA_ERROR_INVALID_VALUE, but no driver was asked, and
// the text says so ("invalid argument (refused by the library, not by the
// driver)") instead
// of printing the driver's code. It matches ErrInvalidValue all the same
// (errors.Is(err, driver.ErrInvalidValue) holds, and errors.As finds a
// Result of that value), so code written against the driver's code keeps
// working.
var ErrInvalidInput = core.ErrInvalidInput
