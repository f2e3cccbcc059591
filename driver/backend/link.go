package backend

// JITInputType is a CUjitInputType: the format of one input of a link.
type JITInputType int32

// Input formats of a link (CUjitInputType; values as in cuda.h, checked
// against cuda-python's and JCuda's bindings).
const (
	JITInputCUBIN    JITInputType = 0 // CU_JIT_INPUT_CUBIN
	JITInputPTX      JITInputType = 1 // CU_JIT_INPUT_PTX
	JITInputFatbin   JITInputType = 2 // CU_JIT_INPUT_FATBINARY
	JITInputObject   JITInputType = 3 // CU_JIT_INPUT_OBJECT
	JITInputLibrary  JITInputType = 4 // CU_JIT_INPUT_LIBRARY
	JITInputLTOIR    JITInputType = 5 // CU_JIT_INPUT_NVVM (LTO-IR)
	numJITInputTypes              = 6
)

// Valid reports whether t is a CUjitInputType.
func (t JITInputType) Valid() bool { return t >= 0 && t < numJITInputTypes }

// LinkInput is one input of a link: its bytes, their format, and a name
// for the linker's messages.
type LinkInput struct {
	Type JITInputType
	Data []byte
	Name string
}

// Linker is implemented by backends that link device code at run time:
// Link is one whole cuLinkCreate_v2, cuLinkAddData_v2 (per input),
// cuLinkComplete, cuLinkDestroy sequence in the current context, with the
// info and error log buffers (and CU_JIT_LOG_VERBOSE when verbose). It
// returns a copy of the linked image (a CUBIN, or another image the same
// backend's ModuleLoadData takes), which the caller owns; the link state is
// destroyed before Link returns, whatever happened. The logs are returned
// on failure too.
type Linker interface {
	Link(inputs []LinkInput, verbose bool) (image []byte, log JITLog, err error)
}
