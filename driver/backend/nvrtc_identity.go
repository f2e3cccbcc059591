package backend

// NVRTCIdentifier is implemented by backends that can name the run-time
// compiler NVRTCProvider.NVRTC returns without opening it (opening libnvrtc,
// a library of tens of megabytes, costs milliseconds). module.Compile keys
// its cache on the identity, so that a cache hit loads the cached image
// without opening any compiler, and opens the compiler on a miss only.
//
// NVRTCIdentity returns a string that differs whenever the compiler would
// produce other output: another implementation (NVIDIA's libnvrtc, the
// fake's), another library file (its resolved path, size and modification
// time: an upgrade changes it), or another version. ok is false when the
// backend cannot tell without opening the compiler; the caller then opens
// it and keys on its Implementation and Version. Once the compiler is open,
// the identity names the compiler actually in use. It must not fail, block
// or load anything.
//
// The identity must come from the object whose NVRTC gives the compiler: a
// backend that wraps another and replaces its compiler must not forward
// the wrapped one's NVRTCIdentity (embedding the interface types API and
// NVRTCProvider, which lack it, forwards nothing), or the two compilers
// would share cache entries.
type NVRTCIdentifier interface {
	NVRTCIdentity() (id string, ok bool)
}
