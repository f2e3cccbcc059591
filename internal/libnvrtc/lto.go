//go:build linux && (amd64 || arm64)

package libnvrtc

import "github.com/nocgo/cuda/driver/backend"

// LTOIR is nvrtcGetLTOIRSize + nvrtcGetLTOIR (CUDA 12.0): the LTO-IR of a
// program compiled with -dlto. A program compiled without it has none: an
// *NVRTCError with Code NVRTCErrorInvalidInput. An NVRTC older than 12.0
// gives a *loader.SymbolError.
func (n *libnvrtc) LTOIR(prog uintptr) ([]byte, error) {
	b, err := n.output(prog, nvGetLTOIRSize, nvGetLTOIR)
	if err != nil {
		return nil, err
	}
	if len(b) == 0 {
		return nil, n.fail("nvrtcGetLTOIR", backend.NVRTCErrorInvalidInput)
	}
	return b, nil
}

var _ backend.NVRTCLTO = (*libnvrtc)(nil)
