//go:build !unix

package fake_test

// processCPU is 0 where the process's CPU time is not read.
func processCPU() float64 { return 0 }
