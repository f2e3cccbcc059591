package driver_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/nocgo/cuda/driver"
)

func TestErrInvalidInput(t *testing.T) {
	err := fmt.Errorf("memory.CopyToDevice: the copy does not fit: %w", driver.ErrInvalidInput)
	assert.ErrorIs(t, err, driver.ErrInvalidValue, "code written against the driver's code keeps working")
	assert.ErrorIs(t, err, driver.ErrInvalidInput)
	var r driver.Result
	assert.True(t, errors.As(err, &r))
	assert.Equal(t, driver.ErrInvalidValue, r)
	assert.NotContains(t, err.Error(), "CUDA_ERROR", "no driver was asked")
	assert.Contains(t, err.Error(), "refused by the library, not by the driver")
	assert.False(t, errors.Is(driver.ErrInvalidValue, driver.ErrInvalidInput), "a driver's own refusal is not a pre-check")
	assert.False(t, errors.Is(err, driver.ErrNotFound))
}
