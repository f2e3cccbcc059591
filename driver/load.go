package driver

import (
	"fmt"

	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/libcuda"
)

// Load finds and opens the real CUDA driver (libcuda; see package loader for
// the search order and environment variables), resolves its entry points
// lazily, calls cuInit(0) and returns a Driver over it. Without a driver it
// returns an error that lists every library path tried.
func Load() (*Driver, error) {
	api, err := libcuda.Open()
	if err != nil {
		return nil, fmt.Errorf("driver.Load: %w", err)
	}
	drv, err := newDriver(api)
	if err != nil {
		if p, ok := api.(backend.LibraryPaths); ok {
			return nil, fmt.Errorf("driver.Load: %v: %w", p.LibraryPaths(), err)
		}
		return nil, fmt.Errorf("driver.Load: %w", err)
	}
	return drv, nil
}
