package graph_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/graph"
)

// The library's own refusals, made before any driver or library call, wrap
// driver.ErrInvalidInput: they still match driver.ErrInvalidValue, but do
// not print a CUDA code that no driver returned.
func TestPreChecksSayNoDriverWasAsked(t *testing.T) {
	for name, err := range map[string]error{
		"nil Graph.Close":       (*graph.Graph)(nil).Close(),
		"nil Graph.Instantiate": func() error { _, err := (*graph.Graph)(nil).Instantiate(); return err }(),
	} {
		assert.ErrorIs(t, err, driver.ErrInvalidInput, name)
		assert.ErrorIs(t, err, driver.ErrInvalidValue, name)
		assert.NotContains(t, err.Error(), "CUDA_ERROR", name)
	}
}
