package nvrtc

import (
	"sync"

	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/abi"
)

// The real NVRTC on the fake. NVRTC needs no GPU, so where NVIDIA's libnvrtc
// is installed the fake compiles with it: module.Compile on the fake turns
// the user's real CUDA C into real PTX, which the fake loads and runs. The
// compiler is wrapped (nvidia) so that it behaves as part of the fake:
//
//   - Program handles are the fake's: a stale or unknown handle is
//     NVRTC_ERROR_INVALID_PROGRAM and never reaches libnvrtc (where it
//     would be a use after free), and a program not destroyed is in Leaks.
//   - FailNth applies to its entry points, as to the pretend compiler's.
//   - A compile for a real architecture (sm_XY) gives the fake's CUBIN (the
//     PTX behind an ELF magic), not NVIDIA's machine code, which the fake
//     cannot run; it loads only on a device of that architecture, as a
//     CUBIN does.
//   - Implementation is "libnvrtc on the fake": module.Compile's cache
//     keeps its output apart from NVIDIA's own ("libnvrtc"). Their PTX is
//     identical, but their CUBINs are not, and a real driver must never be
//     given the fake's CUBIN (nor the fake NVIDIA's).
//   - Go bodies registered for name expressions ("scale<float>") are found
//     under the real lowered names ("_Z5scaleIfEvPT_i") after the compile,
//     so that a Go body takes precedence there too.

// realImplementation is the Implementation of NVIDIA's NVRTC on the fake.
const realImplementation = "libnvrtc on the fake"

// nvidia is NVIDIA's NVRTC (or any backend.NVRTC given to the fake.NVRTC
// option) as the fake's compiler.
type nvidia struct {
	r  *Room
	nv backend.NVRTC
}

// realProgram is a program of the real compiler. Its mutex serialises the
// calls on it: NVRTC is safe for concurrent use on different programs only.
type realProgram struct {
	mu        sync.Mutex
	h         uintptr  // the program in nv
	exprs     []string // the name expressions added
	destroyed bool
}

// Implementation returns "libnvrtc on the fake".
func (r nvidia) Implementation() string { return realImplementation }

// LibraryPaths returns the compiler's library path, when it reports one.
func (r nvidia) LibraryPaths() []string {
	if p, ok := r.nv.(backend.LibraryPaths); ok {
		return p.LibraryPaths()
	}
	return nil
}

// Version is nvrtcVersion.
func (r nvidia) Version() (int, int, error) {
	if err := r.enter(abi.NvrtcVersion); err != nil {
		return 0, 0, err
	}
	return r.nv.Version()
}

func (r nvidia) enter(op string) error { return r.r.enter(op) }

// program finds the live program h and locks it; the caller unlocks.
func (r nvidia) program(h uintptr, op string) (*realProgram, error) {
	r.r.mu.RLock()
	p := r.r.progs[h]
	r.r.mu.RUnlock()
	if p == nil || p.real == nil {
		return nil, nvrtcErr(4, op) // NVRTC_ERROR_INVALID_PROGRAM
	}
	p.real.mu.Lock()
	if p.real.destroyed {
		p.real.mu.Unlock()
		return nil, nvrtcErr(4, op)
	}
	return p.real, nil
}

// use is the start of an entry point on program h: op's fault rules, then
// the program, locked (see program).
func (r nvidia) use(h uintptr, op string) (*realProgram, error) {
	if err := r.enter(op); err != nil {
		return nil, err
	}
	return r.program(h, op)
}

// CreateProgram is nvrtcCreateProgram.
func (r nvidia) CreateProgram(src, name string, headers, includeNames []string) (uintptr, error) {
	if err := r.enter(abi.NvrtcCreateProgram); err != nil {
		return 0, err
	}
	rh, err := r.nv.CreateProgram(src, name, headers, includeNames)
	if err != nil {
		return 0, err
	}
	if name == "" {
		name = "default_program"
	}
	return r.r.add(&program{name: name, real: &realProgram{h: rh}, site: r.r.core.Site()}), nil
}

// AddNameExpression is nvrtcAddNameExpression.
func (r nvidia) AddNameExpression(h uintptr, expr string) error {
	const op = abi.NvrtcAddNameExpression
	p, err := r.use(h, op)
	if err != nil {
		return err
	}
	defer p.mu.Unlock()
	if err := r.nv.AddNameExpression(p.h, expr); err != nil {
		return err
	}
	p.exprs = append(p.exprs, expr)
	return nil
}

// Compile is nvrtcCompileProgram. After a successful compile, the Go body of
// each name expression that has one is registered under its lowered name
// too, unless a body of that name exists.
func (r nvidia) Compile(h uintptr, options []string) error {
	const op = abi.NvrtcCompileProgram
	p, err := r.use(h, op)
	if err != nil {
		return err
	}
	defer p.mu.Unlock()
	if err := r.nv.Compile(p.h, options); err != nil {
		return err
	}
	for _, e := range p.exprs {
		lowered, err := r.nv.LoweredName(p.h, e)
		if err != nil || lowered == e {
			continue
		}
		r.r.core.Alias(e, lowered)
	}
	return nil
}

// ProgramLog is nvrtcGetProgramLog.
func (r nvidia) ProgramLog(h uintptr) (string, error) {
	const op = abi.NvrtcGetProgramLog
	p, err := r.use(h, op)
	if err != nil {
		return "", err
	}
	defer p.mu.Unlock()
	return r.nv.ProgramLog(p.h)
}

// PTX is nvrtcGetPTX.
func (r nvidia) PTX(h uintptr) ([]byte, error) {
	const op = abi.NvrtcGetPTX
	p, err := r.use(h, op)
	if err != nil {
		return nil, err
	}
	defer p.mu.Unlock()
	return r.nv.PTX(p.h)
}

// CUBIN is nvrtcGetCUBIN, answered with the fake's CUBIN: the program's
// PTX behind an ELF magic. NVRTC decides whether there is a CUBIN: for a
// virtual architecture (compute_XY) it is NVRTC's error.
func (r nvidia) CUBIN(h uintptr) ([]byte, error) {
	const op = abi.NvrtcGetCUBIN
	p, err := r.use(h, op)
	if err != nil {
		return nil, err
	}
	defer p.mu.Unlock()
	if _, err := r.nv.CUBIN(p.h); err != nil {
		return nil, err
	}
	ptx, err := r.nv.PTX(p.h)
	if err != nil {
		return nil, err
	}
	return append([]byte(abi.ELFMagic), ptx...), nil
}

// LoweredName is nvrtcGetLoweredName: NVIDIA's lowered (mangled) name.
func (r nvidia) LoweredName(h uintptr, expr string) (string, error) {
	const op = abi.NvrtcGetLoweredName
	p, err := r.use(h, op)
	if err != nil {
		return "", err
	}
	defer p.mu.Unlock()
	return r.nv.LoweredName(p.h, expr)
}

// DestroyProgram is nvrtcDestroyProgram. The handle stays valid when NVRTC
// fails to destroy the program, so that the destroy can be retried.
func (r nvidia) DestroyProgram(h uintptr) error {
	const op = abi.NvrtcDestroyProgram
	p, err := r.use(h, op)
	if err != nil {
		return err
	}
	defer p.mu.Unlock()
	if err := r.nv.DestroyProgram(p.h); err != nil {
		return err
	}
	p.destroyed = true
	r.r.mu.Lock()
	delete(r.r.progs, h)
	r.r.mu.Unlock()
	return nil
}

var (
	_ backend.NVRTC        = nvidia{}
	_ backend.LibraryPaths = nvidia{}
)
