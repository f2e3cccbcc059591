package fake

import (
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/libnvrtc"
)

// pretendIdentity is the pretend compiler's identity: its Implementation
// and Version, as module.Compile keys a compiler that cannot name itself.
const pretendIdentity = "nocgo/cuda fake 13.0"

// NVRTCIdentity names the compiler NVRTC returns without choosing it (see
// backend.NVRTCIdentifier), as the real backend does: the pretend compiler
// by its name and version; NVIDIA's libnvrtc by its file (the one chosen,
// or the one the search would find, prefixed by "libnvrtc on the fake"), so
// that a cache hit on the fake searches for no libnvrtc either. A compiler
// given to the NVRTC option that is not internal/libnvrtc's cannot be
// named: ok is false.
//
// It is a method of the backend, not of the Backend interface: a wrapper
// that embeds Backend and replaces NVRTC does not inherit it, and so is
// never keyed as the fake's own compiler.
func (b *fakeBackend) NVRTCIdentity() (string, bool) {
	var nv backend.NVRTC
	var chosen bool
	switch {
	case b.cfg.compiler.set:
		nv, chosen = b.cfg.compiler.nv, true
	default:
		b.compiler.mu.Lock()
		chosen = b.compiler.done
		nv = b.compiler.nv
		b.compiler.mu.Unlock()
	}
	if chosen && nv == nil {
		return pretendIdentity, true
	}
	var id string
	var ok bool
	if chosen {
		id, ok = libnvrtc.IdentityOf(nv)
	} else {
		id, ok = libnvrtc.Identity()
		if !ok && libnvrtc.Absent() {
			// The search will find no libnvrtc: the pretend compiler
			// answers, as it does once chosen.
			return pretendIdentity, true
		}
	}
	if !ok {
		return "", false
	}
	return realImplementation + " " + id, true
}

// CompilerOpens counts the calls that asked this backend for its run-time
// compiler (backend.NVRTCProvider's NVRTC, which on the real backend opens
// libnvrtc on the first call): a kernel-cache hit in module.Compile makes
// none. A nil *Fake counts none.
func (f *Fake) CompilerOpens() int64 {
	if f == nil || f.b == nil {
		return 0
	}
	return f.b.compiler.opens.Load()
}

var _ backend.NVRTCIdentifier = (*fakeBackend)(nil)
