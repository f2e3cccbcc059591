package fake

// KernelCacheDir makes module.Compile on this fake cache its kernels in
// dir when the compile's Options and NOCGO_CUDA_CACHE_DIR name no
// directory, instead of the user's cache (module.CacheDir):
// cudatest.Fake gives every test's fake the test's own t.TempDir(), so that
// a test writes nothing outside it. NOCGO_CUDA_CACHE=off still turns the
// cache off.
func KernelCacheDir(dir string) Option {
	return func(c *config) { c.cacheDir = dir }
}

// KernelCacheDir returns the directory set by the option KernelCacheDir
// (backend.KernelCache), or "" for module's default.
func (b *fakeBackend) KernelCacheDir() string { return b.cfg.cacheDir }
