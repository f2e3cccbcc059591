package loader

import "path/filepath"

// wheelDirs are the site-packages directories where NVIDIA's pip wheels put
// each math library: CUDA 13's wheels (nvidia-cublas, nvidia-curand,
// nvidia-cufft) all install into nvidia/cu13/lib; CUDA 12's and 11's
// (nvidia-cublas-cu12 and the others PyTorch depends on) into a directory
// of their own.
var wheelDirs = map[Kind][]string{
	CUBLAS:   {"nvidia/cu13/lib", "nvidia/cublas/lib"},
	CUBLASLt: {"nvidia/cu13/lib", "nvidia/cublas/lib"},
	CURAND:   {"nvidia/cu13/lib", "nvidia/curand/lib"},
	CUFFT:    {"nvidia/cu13/lib", "nvidia/cufft/lib"},
	// nvidia-nvjitlink (CUDA 13) and nvidia-nvjitlink-cu12.
	NVJITLINK: {"nvidia/cu13/lib", "nvidia/nvjitlink/lib"},
}

// mathWheels adds library k from the NVIDIA pip wheels of every
// site-packages directory. Only directories that exist are listed.
func mathWheels(c *candidateList, k Kind, ns []string) {
	for _, sp := range sitePackages() {
		for _, sub := range wheelDirs[k] {
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
