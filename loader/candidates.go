package loader

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// names returns the file names of kind k, most specific first.
func names(k Kind) []string {
	switch k {
	case CUDA:
		return []string{"libcuda.so.1", "libcuda.so"}
	case NVRTC:
		return []string{"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2", "libnvrtc.so"}
	case NCCL:
		return []string{"libnccl.so.2", "libnccl.so"}
	case CURAND:
		return []string{"libcurand.so.10", "libcurand.so"}
	case CUFFT:
		return []string{"libcufft.so.12", "libcufft.so.11", "libcufft.so"}
	case CUBLAS:
		return []string{"libcublas.so.13", "libcublas.so.12", "libcublas.so.11", "libcublas.so"}
	case CUBLASLt:
		return []string{"libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so.11", "libcublasLt.so"}
	case NVJITLINK:
		return []string{"libnvJitLink.so.13", "libnvJitLink.so.12", "libnvJitLink.so"}
	case NVML:
		return []string{"libnvidia-ml.so.1", "libnvidia-ml.so"}
	}
	return nil
}

// Candidates returns, in order, every name or path Open(k) tries (see the
// package documentation for the order). When k.EnvVar() is set, its value is
// the only candidate. It returns nil for an unknown Kind. It runs no
// program: it reads the environment and globs a few directories.
func Candidates(k Kind) []string {
	c, ok := systemCandidates(k)
	if !ok {
		return c.list
	}
	wheelCandidates(&c, k)
	return c.list
}

// systemCandidates returns the candidates of Candidates(k) that need no
// search of Python environments: the environment variable's path alone
// (ok false: there are no more), or the names through the system loader
// and the CUDA directories (ok true: the wheels' come after them).
func systemCandidates(k Kind) (c candidateList, ok bool) {
	ns := names(k)
	if ns == nil {
		return c, false
	}
	if p := os.Getenv(k.EnvVar()); p != "" {
		c.add(p)
		return c, false
	}
	for _, n := range ns {
		c.add(n)
	}
	var dirs []string
	for _, env := range []string{"CUDA_HOME", "CUDA_PATH"} {
		if v := os.Getenv(env); v != "" {
			dirs = append(dirs, filepath.Join(v, "lib64"))
		}
	}
	dirs = append(dirs, "/usr/local/cuda/lib64")
	if k == CUDA || k == NVML {
		dirs = append(dirs, "/usr/lib/wsl/lib") // WSL 2 puts the driver here
	}
	for _, d := range dirs {
		for _, n := range ns {
			c.add(filepath.Join(d, n))
		}
	}
	return c, true
}

// wheelCandidates adds to c the candidates of Candidates(k) in NVIDIA's
// pip wheels, which searching the Python environments finds.
func wheelCandidates(c *candidateList, k Kind) {
	ns := names(k)
	if k == NVRTC {
		// The NVIDIA wheels: nvidia-cuda-nvrtc (CUDA 13) installs into
		// nvidia/cu13/lib, nvidia-cuda-nvrtc-cu12 (and -cu11) into
		// nvidia/cuda_nvrtc/lib. Only directories that exist are listed.
		for _, sp := range sitePackages() {
			for _, sub := range []string{"nvidia/cu13/lib", "nvidia/cuda_nvrtc/lib"} {
				d := filepath.Join(sp, sub)
				if !isDir(d) {
					continue
				}
				for _, n := range ns {
					c.add(filepath.Join(d, n))
				}
			}
		}
	}
	if k == NCCL {
		ncclWheels(c, ns)
	}
	if wheelDirs[k] != nil {
		mathWheels(c, k, ns)
	}
}

// candidateList keeps candidates in order without duplicates.
type candidateList struct {
	list []string
	seen map[string]bool
}

func (c *candidateList) add(s string) {
	if c.seen == nil {
		c.seen = map[string]bool{}
	}
	if !c.seen[s] {
		c.seen[s] = true
		c.list = append(c.list, s)
	}
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// sitePackages returns the site-packages (and Debian dist-packages)
// directories of the Python environments that can be found cheaply: an
// active virtual environment or conda environment, the prefix of the
// python3 on PATH (and of the interpreter it links to), pyenv's versions
// when python3 is a pyenv shim, and the user's ~/.local. Python is never run.
func sitePackages() []string {
	var prefixes candidateList
	for _, env := range []string{"VIRTUAL_ENV", "CONDA_PREFIX"} {
		if v := os.Getenv(env); v != "" {
			prefixes.add(v)
		}
	}
	if py, err := exec.LookPath("python3"); err == nil {
		if abs, err := filepath.Abs(py); err == nil {
			py = abs
		}
		prefixes.add(filepath.Dir(filepath.Dir(py)))
		if real, err := filepath.EvalSymlinks(py); err == nil {
			prefixes.add(filepath.Dir(filepath.Dir(real)))
		}
		if dir := filepath.Dir(py); filepath.Base(dir) == "shims" && strings.Contains(dir, "pyenv") {
			vs, _ := filepath.Glob(filepath.Join(filepath.Dir(dir), "versions", "*"))
			for _, v := range vs {
				prefixes.add(v)
			}
		}
		if filepath.Dir(filepath.Dir(py)) == "/usr" {
			prefixes.add("/usr/local") // pip's system-wide installs on Debian
		}
	}
	if home, err := os.UserHomeDir(); err == nil {
		prefixes.add(filepath.Join(home, ".local"))
	}
	var out candidateList
	for _, p := range prefixes.list {
		for _, pat := range []string{"lib/python3*/site-packages", "lib/python3*/dist-packages", "lib64/python3*/site-packages"} {
			ms, _ := filepath.Glob(filepath.Join(p, pat))
			for _, m := range ms {
				if isDir(m) {
					out.add(m)
				}
			}
		}
	}
	return out.list
}

// PythonSitePackages returns the site-packages (and dist-packages)
// directories the search for NVIDIA's pip wheels looks in (see the package
// documentation), without running Python; module.Compile finds the wheels'
// CUDA headers there.
func PythonSitePackages() []string { return sitePackages() }
