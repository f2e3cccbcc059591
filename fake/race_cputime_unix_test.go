//go:build unix

package fake_test

import "syscall"

// processCPU returns the CPU time the process has used, in seconds
// (user and system), or 0 where it cannot be read: BenchmarkRaceCost's
// threads/cpu-s, which other processes on a loaded machine disturb less
// than the wall clock.
func processCPU() float64 {
	var u syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &u) != nil {
		return 0
	}
	return float64(u.Utime.Nano()+u.Stime.Nano()) / 1e9
}
