package nvrtc

import (
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/abi"
)

// LTO-IR (nvrtcGetLTOIR) on the fake: NVIDIA's NVRTC on the fake gives
// its own LTO-IR for a program compiled with -dlto, as on a GPU machine
// (NVRTC needs no GPU); the pretend compiler makes none. Either way the
// fake has no nvJitLink (backend.JITLinkProvider) to link it, so a Link
// of LTO-IR on the fake goes to its cuLink, which refuses it.

// LTOIR is nvrtcGetLTOIR for the pretend compiler: it makes no LTO-IR, so
// a compiled program has none (NVRTC_ERROR_INVALID_INPUT, as NVIDIA's
// answers for a program compiled without -dlto); a program not compiled
// is NVRTC_ERROR_INVALID_PROGRAM.
func (n pretend) LTOIR(h uintptr) ([]byte, error) {
	const op = abi.NvrtcGetLTOIR
	p, err := n.use(h, op)
	if err != nil {
		return nil, err
	}
	n.r.mu.RLock()
	defer n.r.mu.RUnlock()
	if !p.compiled {
		return nil, nvrtcErr(4, op)
	}
	return nil, nvrtcErr(3, op)
}

// LTOIR is nvrtcGetLTOIR: NVIDIA's LTO-IR of the program, where the
// compiler gives LTO-IR (NVRTC 12.0 and later), else
// NVRTC_ERROR_INVALID_INPUT.
func (r nvidia) LTOIR(h uintptr) ([]byte, error) {
	const op = abi.NvrtcGetLTOIR
	p, err := r.use(h, op)
	if err != nil {
		return nil, err
	}
	defer p.mu.Unlock()
	lto, ok := r.nv.(backend.NVRTCLTO)
	if !ok {
		return nil, nvrtcErr(3, op)
	}
	return lto.LTOIR(p.h)
}

var (
	_ backend.NVRTCLTO = pretend{}
	_ backend.NVRTCLTO = nvidia{}
)
