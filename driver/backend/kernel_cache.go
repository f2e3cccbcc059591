package backend

// KernelCache is the optional interface of a backend that names the
// directory module.Compile caches its kernels in when neither the compile's
// Options nor the environment (NOCGO_CUDA_CACHE_DIR) name one: the fake of
// a test, which keeps its cache in the test's own temporary directory
// (cudatest.Fake), so that a test never writes to the user's cache. An
// empty string leaves module's default.
type KernelCache interface {
	KernelCacheDir() string
}
