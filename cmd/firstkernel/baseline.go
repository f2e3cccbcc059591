package main

import (
	"os"
	"os/exec"
	"path/filepath"
)

// cudaHome is where the C baseline finds cuda.h and libcuda's stub.
func cudaHome() string {
	if h := os.Getenv("CUDA_HOME"); h != "" {
		return h
	}
	return "/usr/local/cuda"
}

// buildC builds the C baseline from src into dir with gcc, or returns ""
// and why it could not.
func buildC(src, dir string) (bin, why string) {
	if _, err := os.Stat(src); err != nil {
		return "", "no C source: " + err.Error()
	}
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		return "", "no gcc"
	}
	home := cudaHome()
	if _, err := os.Stat(filepath.Join(home, "include", "cuda.h")); err != nil {
		return "", "no cuda.h in " + home + "/include"
	}
	bin = filepath.Join(dir, "phases_baseline")
	out, err := exec.Command(gcc, "-O2", src, "-I"+filepath.Join(home, "include"),
		"-L"+filepath.Join(home, "lib64", "stubs"), "-L"+filepath.Join(home, "lib64"),
		"-lcuda", "-ldl", "-o", bin).CombinedOutput()
	if err != nil {
		return "", "gcc: " + err.Error() + ": " + string(out)
	}
	return bin, ""
}

// cudaLibraryPath is the environment the C baseline runs in: the toolkit's
// libraries on LD_LIBRARY_PATH, as the other C baselines run.
func cudaLibraryPath() []string {
	p := filepath.Join(cudaHome(), "lib64")
	if old := os.Getenv("LD_LIBRARY_PATH"); old != "" {
		p += ":" + old
	}
	return []string{"LD_LIBRARY_PATH=" + p}
}
