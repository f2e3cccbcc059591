package worker

import (
	"fmt"
	"os"
	"strings"
	"sync/atomic"

	"github.com/nocgo/cuda/gpu"
)

// envMarker is the environment variable that marks a worker process; its
// value is "1:" and the UUID of the worker's device.
const envMarker = "NOCGO_CUDA_WORKER"

// Main serves as a worker when this process was started as one by a Pool
// (the environment says so), and returns at once otherwise. Call it first
// in main, and in TestMain for tests that use a Pool:
//
//	func main() {
//		worker.Main()
//		...
//	}
//
// In a worker, Main opens the machine's driver (gpu.Load), takes the
// primary context of the device it was started for, serves calls on the
// pipes its parent gave it, and exits the process (with status 0 when its
// parent closed the pool, 3 after a sticky fault, 4 after a panic) without
// returning. A worker whose driver does not open still serves the
// functions that need none; Env says why for the others.
//
// New refuses to make a Pool in a process whose main never called Main, on
// the fake too (whose workers run in the process), so that a test on the
// fake finds the omission that would make the real workers fail to start.
func Main() {
	spec, ok := os.LookupEnv(envMarker)
	if !ok {
		mainCalled.Store(true)
		return
	}
	os.Unsetenv(envMarker) // the worker's own children are not workers
	os.Exit(child(spec))
}

// mainCalled records that Main returned in this process: New checks it.
var mainCalled atomic.Bool

// child is the worker process: fd 3 brings requests, fd 4 takes replies.
func child(spec string) int {
	uuid, ok := strings.CutPrefix(spec, "1:")
	if !ok {
		fmt.Fprintf(os.Stderr, "worker: %s=%q: not a worker of this version\n", envMarker, spec)
		return 2
	}
	r, w := os.NewFile(3, "worker-requests"), os.NewFile(4, "worker-replies")
	if r == nil || w == nil {
		fmt.Fprintln(os.Stderr, "worker: started without its pipes (fds 3 and 4)")
		return 2
	}
	drv, err := gpu.Load()
	env := openEnv(drv, err, uuid, os.Getpid())
	// The calls run on a goroutine of their own, so that a function that
	// calls runtime.Goexit ends the worker (status 5) instead of leaving
	// it hung with no goroutine serving.
	done := make(chan int, 1)
	go func() {
		served := false
		defer func() {
			if !served {
				done <- 5
			}
		}()
		code := serve(r, w, env)
		if code == 0 {
			env.close()
		}
		served = true
		done <- code
	}()
	return <-done
}
