package loader

import "path/filepath"

// cublasWheels adds libcublas and libcublasLt from the NVIDIA pip wheels:
// nvidia-cublas (CUDA 13) installs them into nvidia/cu13/lib of
// site-packages, nvidia-cublas-cu12 (which PyTorch depends on) and -cu11
// into nvidia/cublas/lib. Only directories that exist are listed.
func cublasWheels(c *candidateList, ns []string) {
	for _, sp := range sitePackages() {
		for _, sub := range []string{"nvidia/cu13/lib", "nvidia/cublas/lib"} {
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
