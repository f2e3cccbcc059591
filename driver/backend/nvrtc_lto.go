package backend

// NVRTCLTO is implemented by run-time compilers (backend.NVRTC values)
// that give LTO-IR: LTOIR is nvrtcGetLTOIRSize + nvrtcGetLTOIR (CUDA
// 12.0), the NVVM IR of a program compiled with -dlto, for a link-time
// optimising link (see JITLinker). A program compiled without -dlto has
// none: an *NVRTCError.
type NVRTCLTO interface {
	LTOIR(prog uintptr) ([]byte, error)
}
