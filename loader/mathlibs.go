package loader

import "path/filepath"

// mathWheels adds libcurand and libcufft from the NVIDIA pip wheels:
// CUDA 13's (nvidia-curand, nvidia-cufft) install into nvidia/cu13/lib,
// CUDA 12's (nvidia-curand-cu12, nvidia-cufft-cu12, which PyTorch depends
// on) into nvidia/curand/lib and nvidia/cufft/lib of site-packages. Only
// directories that exist are listed.
func mathWheels(c *candidateList, k Kind, ns []string) {
	sub := "nvidia/curand/lib"
	if k == CUFFT {
		sub = "nvidia/cufft/lib"
	}
	for _, sp := range sitePackages() {
		for _, s := range []string{"nvidia/cu13/lib", sub} {
			d := filepath.Join(sp, s)
			if !isDir(d) {
				continue
			}
			for _, n := range ns {
				c.add(filepath.Join(d, n))
			}
		}
	}
}
