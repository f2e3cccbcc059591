// Command cudainfo reports the CUDA driver, the libraries it was loaded from,
// every device's facts and the NVRTC version; with -selftest it also compiles
// and runs a kernel and checks its result. With -fake it reports on the
// in-process fake backend instead, so it runs on any machine; where NVIDIA's
// libnvrtc is installed, the fake compiles the self-test's CUDA C with it and
// runs the PTX in its interpreter (the report's nvrtc line names the
// compiler), else it uses its pretend compiler and the kernel's Go body.
//
//	go run ./cmd/cudainfo            # the real driver
//	go run ./cmd/cudainfo -fake      # no GPU needed
//	go run ./cmd/cudainfo -json      # for scripts
//	go run ./cmd/cudainfo -selftest  # also compile and launch a kernel
//
// Without a driver it prints every library path it tried and exits 1.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
)

func main() {
	useFake := flag.Bool("fake", false, "report on the in-process fake backend instead of the real driver")
	asJSON := flag.Bool("json", false, "print the report as JSON")
	selftest := flag.Bool("selftest", false, "also compile, launch and check the segment_scale kernel")
	flag.Parse()
	os.Exit(run(os.Stdout, os.Stderr, *useFake, *asJSON, *selftest))
}

func run(stdout, stderr io.Writer, useFake, asJSON, selftest bool) int {
	open, what := realDriver, "no CUDA driver"
	if useFake {
		open, what = fakeDriver, "the fake driver does not start"
	}
	drv, api, err := open()
	if err != nil {
		fmt.Fprintf(stderr, "cudainfo: %s: %v\n", what, err)
		if !useFake {
			fmt.Fprintln(stderr, "cudainfo: set NOCGO_CUDA_LIBCUDA to the library's path, or run with -fake to use the in-process fake driver")
		}
		return 1
	}
	rep, err := collect(drv, api, useFake)
	status := 0
	if err != nil {
		fmt.Fprintf(stderr, "cudainfo: %v\n", err)
		status = 1
	}
	if selftest {
		rep.SelfTest = runSelfTest(drv, api)
		if !rep.SelfTest.OK {
			status = 1
		}
	}
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			fmt.Fprintf(stderr, "cudainfo: %v\n", err)
			return 1
		}
	} else {
		rep.print(stdout)
	}
	return status
}
