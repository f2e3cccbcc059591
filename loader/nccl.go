package loader

import "path/filepath"

// ncclWheels adds libnccl from the NVIDIA pip wheels (nvidia-nccl-cu12,
// nvidia-nccl-cu13, which PyTorch depends on): they install it into
// nvidia/nccl/lib of site-packages. Only directories that exist are listed.
func ncclWheels(c *candidateList, ns []string) {
	for _, sp := range sitePackages() {
		d := filepath.Join(sp, "nvidia/nccl/lib")
		if !isDir(d) {
			continue
		}
		for _, n := range ns {
			c.add(filepath.Join(d, n))
		}
	}
}
