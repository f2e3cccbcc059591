package module

import (
	"os"
	"path/filepath"

	"github.com/nocgo/cuda/loader"
)

// ToolkitIncludeEnv names the environment variable that sets the CUDA
// toolkit's include directories outright (a list, separated as PATH is),
// instead of ToolkitIncludePaths' search; each directory's cccl
// subdirectory, where there is one, comes with it. CI points it at a copy
// of Debian's CUDA headers (.ci/install-cuda-headers.sh); the conformance
// suite's samples read it too.
const ToolkitIncludeEnv = "NOCGO_CUDA_INCLUDE"

// ToolkitIncludePaths returns the include directories of the CUDA toolkit
// installed on this machine, in the order Compile passes them to NVRTC
// (-I, after Options.IncludePaths), found as CuPy and NVIDIA's cuda-python
// find them:
//
//  1. The directories of $NOCGO_CUDA_INCLUDE (see ToolkitIncludeEnv), when
//     it is set: those alone.
//  2. Otherwise the include directory of the first toolkit of $CUDA_HOME,
//     $CUDA_PATH and /usr/local/cuda that has one, preceded by its
//     include/cccl (where CUDA 13 keeps libcu++, CUB and Thrust: without
//     it, <cooperative_groups.h> fails with "cannot open source file
//     cuda/std/type_traits").
//  3. With no toolkit, the include directories of NVIDIA's pip wheels in
//     the Python environments package loader finds (site-packages/nvidia/
//     cu13/include and its cccl for CUDA 13; nvidia/cuda_runtime/include,
//     nvidia/cuda_nvrtc/include and nvidia/cuda_cccl/include for the cu12
//     wheels).
//
// Only directories that exist are returned; nil when there are none. It
// runs no program.
func ToolkitIncludePaths() []string {
	if v := os.Getenv(ToolkitIncludeEnv); v != "" {
		var out []string
		for _, d := range filepath.SplitList(v) {
			if d != "" {
				out = appendInclude(out, d)
			}
		}
		return out
	}
	var roots []string
	for _, env := range []string{"CUDA_HOME", "CUDA_PATH"} {
		if v := os.Getenv(env); v != "" {
			roots = append(roots, v)
		}
	}
	for _, r := range append(roots, "/usr/local/cuda") {
		if d := filepath.Join(r, "include"); isDir(d) {
			return appendInclude(nil, d)
		}
	}
	var out []string
	for _, sp := range loader.PythonSitePackages() {
		for _, sub := range []string{"nvidia/cu13/include", "nvidia/cuda_runtime/include", "nvidia/cuda_nvrtc/include", "nvidia/cuda_cccl/include"} {
			if d := filepath.Join(sp, sub); isDir(d) {
				out = appendInclude(out, d)
			}
		}
		if out != nil {
			return out // one environment's wheels, never two mixed
		}
	}
	return nil
}

// appendInclude appends dir's cccl subdirectory, where there is one, and
// dir, to out, leaving out what does not exist or is there already.
func appendInclude(out []string, dir string) []string {
	for _, d := range []string{filepath.Join(dir, "cccl"), dir} {
		if !isDir(d) {
			continue
		}
		dup := false
		for _, o := range out {
			dup = dup || o == d
		}
		if !dup {
			out = append(out, d)
		}
	}
	return out
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
