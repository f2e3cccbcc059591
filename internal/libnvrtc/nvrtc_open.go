//go:build linux && (amd64 || arm64)

package libnvrtc

import "github.com/nocgo/cuda/driver/backend"

// Open opens libnvrtc alone, without libcuda, through package loader
// (see there for the search order and NOCGO_CUDA_LIBNVRTC). NVRTC needs no
// GPU: the compiler it returns works on any machine where the library is
// installed. A missing library is a *loader.LibraryError listing every path
// tried. Each call searches again; the library itself is loaded once per
// process by the system loader.
func Open() (backend.NVRTC, error) {
	n, err := openLibnvrtc()
	if err != nil {
		return nil, err
	}
	return n, nil
}

// LibraryPaths returns the path of the libnvrtc file the system loader
// opened.
func (n *libnvrtc) LibraryPaths() []string { return []string{n.lib.Path()} }

var _ backend.LibraryPaths = (*libnvrtc)(nil)
