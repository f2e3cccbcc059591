//go:build linux && (amd64 || arm64)

package libcuda

import (
	"sync"

	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/libnvjitlink"
)

// lazyJITLinker is libnvJitLink, opened on the first JITLinker call.
type lazyJITLinker struct {
	once sync.Once
	l    backend.JITLinker
	err  error
}

// openJITLink is libnvjitlink.Open; tests replace it.
var openJITLink = libnvjitlink.Open

// JITLinker opens libnvJitLink (internal/libnvjitlink, through package
// loader) on the first call and returns NVIDIA's JIT linker; later calls
// return the same linker, or the same error.
func (l *libcuda) JITLinker() (backend.JITLinker, error) {
	j := &l.jitLink
	j.once.Do(func() { j.l, j.err = openJITLink() })
	return j.l, j.err
}

var _ backend.JITLinkProvider = (*libcuda)(nil)
