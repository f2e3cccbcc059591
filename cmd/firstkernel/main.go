// Command firstkernel measures the time to a first kernel result in a
// fresh process, phase by phase, beside the same phases in C, with the
// kernel cache warm: the process start, loading and initialising the
// driver, the device's facts, the primary context, module.Compile hitting
// the cache (which opens no NVRTC), the input copied in, the launch, and
// the result copied out and checked (segment_scale over 1M elements).
//
// Run with no arguments, it runs itself (and the C baseline, where it can
// build one) as fresh child processes, after one warming run that fills a
// kernel cache of its own and writes the CUBIN for C:
//
//	firstkernel [-rounds 5] [-fake] [-c path/to/phases_baseline.c]
//
// Each child prints "PHASE go <phase> <ms>" lines (the C baseline "PHASE
// c ..."); the parent prints them and then, per phase, the median of each.
// The C baseline (../shared/bench/phases_baseline.c, copied to
// .gpu/bench/ by gpu-prep) is built with gcc against /usr/local/cuda when
// both are there, and skipped otherwise. With -fake, the Go phases run on
// the fake driver (a smoke test on a machine with no GPU; no C).
package main

import (
	"flag"
	"fmt"
	"os"
)

// childEnv set to a cache directory makes the process one measured run.
const childEnv = "NOCGO_CUDA_FIRSTKERNEL_CHILD"

// startEnv holds the parent's clock (ns since the epoch) just before it
// started the child: the child's first phase is measured from it.
const startEnv = "T0"

func main() {
	if dir := os.Getenv(childEnv); dir != "" {
		if err := child(dir, os.Getenv("NOCGO_CUDA_FIRSTKERNEL_FAKE") == "1", os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "firstkernel:", err)
			os.Exit(1)
		}
		return
	}
	rounds := flag.Int("rounds", 5, "fresh processes of each kind")
	useFake := flag.Bool("fake", false, "run the Go phases on the fake driver (no GPU, no C)")
	cSource := flag.String("c", ".gpu/bench/phases_baseline.c", "the C baseline's source")
	flag.Parse()
	if err := parent(*rounds, *useFake, *cSource, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "firstkernel:", err)
		os.Exit(1)
	}
}
