// Package libcuda is the real backend: backend.API over libcuda and
// backend.NVRTC over libnvrtc, found and opened by package loader and called
// through internal/dl. driver.Load is its one user.
package libcuda
