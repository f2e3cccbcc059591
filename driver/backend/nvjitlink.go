package backend

import "fmt"

// JITLinkInputKind is an nvJitLinkInputType: what one input of a JITLinker
// link holds.
type JITLinkInputKind int32

// nvJitLink's input kinds.
const (
	JITLinkCUBIN  JITLinkInputKind = 1 // NVJITLINK_INPUT_CUBIN
	JITLinkPTX    JITLinkInputKind = 2 // NVJITLINK_INPUT_PTX
	JITLinkLTOIR  JITLinkInputKind = 3 // NVJITLINK_INPUT_LTOIR
	JITLinkFatbin JITLinkInputKind = 4 // NVJITLINK_INPUT_FATBIN
)

// JITLinkInput is one input of a link: its kind, its bytes and the name
// the linker's messages call it by.
type JITLinkInput struct {
	Kind JITLinkInputKind
	Data []byte
	Name string
}

// JITLinker is NVIDIA's JIT linker (libnvJitLink), which links LTO-IR with
// link-time optimisation where the driver's cuLink no longer does. Link
// makes a linker (nvJitLinkCreate with options, such as "-arch=sm_90" and
// "-lto"), adds the inputs (nvJitLinkAddData), completes it
// (nvJitLinkComplete) and returns the linked CUBIN
// (nvJitLinkGetLinkedCubin) and the info log; the linker is destroyed
// (nvJitLinkDestroy) before Link returns, whatever happened, so nothing
// outlives the call. A link that fails is a *JITLinkError carrying the
// error log. Version is nvJitLinkVersion.
type JITLinker interface {
	Link(options []string, inputs []JITLinkInput) (cubin []byte, infoLog string, err error)
	Version() (major, minor int, err error)
}

// JITLinkProvider is implemented by backends that can open a JITLinker:
// the real backend opens libnvJitLink on the first call (later calls
// return the same linker, or the same error). The fake has none.
type JITLinkProvider interface {
	JITLinker() (JITLinker, error)
}

// JITLinkError is a failed nvJitLinkResult, with the linker's error log.
type JITLinkError struct {
	Code int    // the nvJitLinkResult
	Name string // "NVJITLINK_ERROR_NVVM_COMPILE"
	Op   string // the entry point, such as "nvJitLinkComplete"
	Log  string // the error log, when the linker wrote one
}

// Error returns the entry point, the result's name and the error log.
func (e *JITLinkError) Error() string {
	s := fmt.Sprintf("%s: %s", e.Op, e.Name)
	if e.Log != "" {
		s += ":\n" + e.Log
	}
	return s
}
