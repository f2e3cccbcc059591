package nvrtc

import (
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/libnvrtc"
)

// pretendIdentity is the pretend compiler's identity: its Implementation
// and Version, as module.Compile keys a compiler that cannot name itself.
const pretendIdentity = "nocgo/cuda fake 13.0"

// NVRTCIdentity is backend.NVRTCIdentifier's: it names the compiler NVRTC
// returns without choosing it, as the real backend does: the pretend
// compiler by its name and version; NVIDIA's libnvrtc by its file (the one
// chosen, or the one the search would find, prefixed by "libnvrtc on the
// fake"), so that a cache hit on the fake searches for no libnvrtc either.
// A compiler given to the fake.NVRTC option that is not internal/libnvrtc's
// cannot be named: ok is false.
func (r *Room) NVRTCIdentity() (string, bool) {
	var nv backend.NVRTC
	var chosen bool
	switch {
	case r.choice.Set:
		nv, chosen = r.choice.NV, true
	default:
		r.pick.Lock()
		chosen = r.done
		nv = r.nv
		r.pick.Unlock()
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
