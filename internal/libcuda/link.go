//go:build linux && (amd64 || arm64)

package libcuda

import (
	"runtime"
	"unsafe"

	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/cstr"
	"github.com/nocgo/cuda/internal/dl"
)

// Link links inputs in the current context: cuLinkCreate_v2(unsigned int
// numOptions, CUjit_option *options, void **optionValues, CUlinkState
// *stateOut) with the log buffers, cuLinkAddData_v2(CUlinkState,
// CUjitInputType, void *data, size_t size, const char *name, unsigned int
// numOptions, CUjit_option*, void**) for each input, cuLinkComplete(
// CUlinkState, void **cubinOut, size_t *sizeOut), a copy of the CUBIN
// (owned by the link state until cuLinkDestroy), and cuLinkDestroy, which
// runs whatever happened once the state exists. PTX inputs are passed
// NUL-terminated, as the driver requires. Bad inputs (none, an unknown
// type, empty data, a name with a NUL byte) are ErrInvalidValue before any
// call.
func (l *libcuda) Link(inputs []backend.LinkInput, verbose bool) (image []byte, log backend.JITLog, err error) {
	if len(inputs) == 0 {
		return nil, log, backend.ErrInvalidValue
	}
	names := make([][]byte, len(inputs))
	datas := make([][]byte, len(inputs))
	for i, in := range inputs {
		if !in.Type.Valid() || len(in.Data) == 0 {
			return nil, log, backend.ErrInvalidValue
		}
		if names[i], err = cstr.Bytes(in.Name); err != nil {
			return nil, log, backend.ErrInvalidValue
		}
		datas[i] = in.Data
		if in.Type == backend.JITInputPTX && in.Data[len(in.Data)-1] != 0 {
			datas[i] = append(in.Data[:len(in.Data):len(in.Data)], 0)
		}
	}
	var create, add, complete, destroy uintptr
	for _, s := range []struct {
		sym sym
		p   *uintptr
	}{{symLinkCreate, &create}, {symLinkAddData, &add}, {symLinkComplete, &complete}, {symLinkDestroy, &destroy}} {
		if *s.p, err = l.fn(s.sym); err != nil {
			return nil, log, err
		}
	}
	j := newJITLogs(verbose)
	defer j.unpin()
	n, opts, vals := j.args()
	var state uintptr
	if err := check(dl.Call4(create, n, opts, vals, uintptr(unsafe.Pointer(&state)))); err != nil {
		return nil, j.log(), err
	}
	defer func() {
		if derr := check(dl.Call1(destroy, state)); derr != nil && err == nil {
			image, err = nil, derr
		}
		log = j.log()
	}()
	for i, in := range inputs {
		d := datas[i]
		r := dl.Call8(add, state, uintptr(in.Type), uintptr(unsafe.Pointer(&d[0])), uintptr(len(d)),
			uintptr(unsafe.Pointer(&names[i][0])), 0, 0, 0)
		runtime.KeepAlive(d)
		runtime.KeepAlive(names[i])
		if err := check(r); err != nil {
			return nil, log, err
		}
	}
	var cubin unsafe.Pointer
	var size uintptr
	if err := check(dl.Call3(complete, state, uintptr(unsafe.Pointer(&cubin)), uintptr(unsafe.Pointer(&size)))); err != nil {
		return nil, log, err
	}
	if cubin == nil || size == 0 {
		return nil, log, backend.ErrInvalidImage
	}
	// The CUBIN is the link state's memory: copied before cuLinkDestroy.
	return append([]byte(nil), unsafe.Slice((*byte)(cubin), size)...), log, nil
}

var _ backend.Linker = (*libcuda)(nil)
