package loader_test

import (
	"errors"
	"fmt"
	"os"

	"github.com/nocgo/cuda/loader"
)

// An explicit path in NOCGO_CUDA_LIBCUDA is the only candidate; when it
// cannot be opened, the error says which path failed and why.
func ExampleOpen() {
	os.Setenv("NOCGO_CUDA_LIBCUDA", "/opt/missing-driver/libcuda.so.1")
	defer os.Unsetenv("NOCGO_CUDA_LIBCUDA")

	fmt.Println(loader.Candidates(loader.CUDA))
	_, err := loader.Open(loader.CUDA)
	var lerr *loader.LibraryError
	if errors.As(err, &lerr) {
		for _, a := range lerr.Tried {
			fmt.Println("tried", a)
		}
	}
	// Output:
	// [/opt/missing-driver/libcuda.so.1]
	// tried /opt/missing-driver/libcuda.so.1: no such file or directory
}

// Candidates shows what Open searches, for diagnostics such as cudainfo's.
func ExampleCandidates() {
	os.Unsetenv("NOCGO_CUDA_LIBNVRTC") // no explicit path: the full search
	for _, c := range loader.Candidates(loader.NVRTC)[:4] {
		fmt.Println(c)
	}
	// Output:
	// libnvrtc.so.13
	// libnvrtc.so.12
	// libnvrtc.so.11.2
	// libnvrtc.so
}
