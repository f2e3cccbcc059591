//go:build linux && (amd64 || arm64)

package libcuda

import (
	"bytes"
	"runtime"
	"unsafe"

	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/dl"
)

// CUjit_option values (a C enum: 4 bytes each in the options array), as in
// cuda.h, checked against JCuda's CUjit_option and numba's enums.py:
const (
	jitInfoLogBuffer          = 3  // CU_JIT_INFO_LOG_BUFFER: char*
	jitInfoLogBufferSizeBytes = 4  // CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES: unsigned int, in and out
	jitErrorLogBuffer         = 5  // CU_JIT_ERROR_LOG_BUFFER: char*
	jitErrorLogBufferSizeByte = 6  // CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES: unsigned int, in and out
	jitLogVerbose             = 12 // CU_JIT_LOG_VERBOSE: int
)

// jitLogSize is the size of each log buffer, NUL included: the driver cuts
// longer logs there.
const jitLogSize = 64 << 10

// jitLogs is the option arrays of a load or link that asks for the logs.
// The option values are void* slots that hold each value itself: the
// buffers' addresses, the sizes as integers (the driver writes the bytes
// it used back into the size slots) and the verbose flag as 0 or 1. The
// buffers are Go memory pinned for as long as the driver may write them
// (until unpin), which for a link is from cuLinkCreate to cuLinkDestroy.
type jitLogs struct {
	opts      []int32
	vals      []uintptr
	info, err []byte
	pin       runtime.Pinner
}

// newJITLogs returns the options asking for both logs (and verbose ones).
func newJITLogs(verbose bool) *jitLogs {
	j := &jitLogs{info: make([]byte, jitLogSize), err: make([]byte, jitLogSize)}
	j.pin.Pin(&j.info[0])
	j.pin.Pin(&j.err[0])
	j.opts = []int32{jitInfoLogBuffer, jitInfoLogBufferSizeBytes, jitErrorLogBuffer, jitErrorLogBufferSizeByte}
	j.vals = []uintptr{uintptr(unsafe.Pointer(&j.info[0])), jitLogSize, uintptr(unsafe.Pointer(&j.err[0])), jitLogSize}
	if verbose {
		j.opts = append(j.opts, jitLogVerbose)
		j.vals = append(j.vals, 1)
	}
	j.pin.Pin(&j.opts[0])
	j.pin.Pin(&j.vals[0])
	return j
}

// args returns numOptions, options and optionValues.
func (j *jitLogs) args() (n, opts, vals uintptr) {
	return uintptr(len(j.opts)), uintptr(unsafe.Pointer(&j.opts[0])), uintptr(unsafe.Pointer(&j.vals[0]))
}

// log reads the logs: each up to the length the driver wrote back (the
// low 32 bits of its size slot, an unsigned int) and its first NUL.
func (j *jitLogs) log() backend.JITLog {
	text := func(buf []byte, used uintptr) string {
		n := min(uintptr(uint32(used)), uintptr(len(buf)))
		b := buf[:n]
		if i := bytes.IndexByte(b, 0); i >= 0 {
			b = b[:i]
		}
		return string(bytes.TrimRight(b, "\n"))
	}
	return backend.JITLog{Info: text(j.info, j.vals[1]), Error: text(j.err, j.vals[3])}
}

// unpin lets the garbage collector have the buffers again.
func (j *jitLogs) unpin() { j.pin.Unpin() }

// ModuleLoadDataEx is cuModuleLoadDataEx(CUmodule *module, const void
// *image, unsigned int numOptions, CUjit_option *options, void
// **optionValues) with the info and error logs, in the current context.
// The image is checked as for ModuleLoadData.
func (l *libcuda) ModuleLoadDataEx(image []byte, verbose bool) (uintptr, backend.JITLog, error) {
	if len(image) == 0 {
		return 0, backend.JITLog{}, backend.ErrInvalidValue
	}
	p, err := l.fn(symModuleLoadDataEx)
	if err != nil {
		return 0, backend.JITLog{}, err
	}
	img, err := moduleImage(image)
	if err != nil {
		return 0, backend.JITLog{}, err
	}
	j := newJITLogs(verbose)
	defer j.unpin()
	n, opts, vals := j.args()
	var m uintptr
	r := dl.Call5(p, uintptr(unsafe.Pointer(&m)), uintptr(unsafe.Pointer(&img[0])), n, opts, vals)
	runtime.KeepAlive(img)
	return m, j.log(), check(r)
}

var _ backend.ModuleJIT = (*libcuda)(nil)
