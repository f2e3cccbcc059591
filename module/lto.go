package module

import (
	"errors"
	"fmt"
	"strings"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/core"
)

// CompileLTOIR compiles CUDA C++ source with NVRTC to LTO-IR (-dlto,
// which implies relocatable device code), for Link to link with
// link-time optimisation through nvJitLink. The target is Options.Arch,
// or sm_XY of ctx's device; the options are Compile's (the toolkit's
// headers included), but name expressions are not resolved and nothing is
// cached: the result is an input of Link, not a module. A source NVRTC
// rejects gives a *CompileError with the log. A compiler without LTO-IR
// gives an error: a *loader.SymbolError for an NVRTC before 12.0, an
// *backend.NVRTCError from nvrtcGetLTOIR for the fake's pretend compiler
// (NVIDIA's NVRTC on the fake gives LTO-IR, but the fake has no nvJitLink
// to link it), errors.ErrUnsupported for a backend's compiler without it.
func CompileLTOIR(ctx *driver.Context, src string, opts Options) ([]byte, error) {
	const op = "module.CompileLTOIR"
	cc := core.ContextOf(ctx)
	if cc == nil {
		return nil, fmt.Errorf("%s: nil context: %w", op, driver.ErrInvalidInput)
	}
	if ctx.Closed() {
		return nil, fmt.Errorf("%s: %s: %w", op, ctx, driver.ErrClosed)
	}
	name := opts.name()
	if err := opts.check(); err != nil {
		return nil, fmt.Errorf("%s: %s: %v: %w", op, name, err, driver.ErrInvalidInput)
	}
	if len(opts.NameExpressions) > 0 {
		return nil, fmt.Errorf("%s: %s: name expressions are not resolved for LTO-IR (use extern \"C\" names): %w", op, name, driver.ErrInvalidInput)
	}
	arch := opts.Arch
	if arch == "" {
		ma, mi, err := computeCapability(cc.API, ctx.Device())
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", op, name, err)
		}
		arch = fmt.Sprintf("sm_%d%d", ma, mi)
	}
	opts.toolkit = findToolkit(src, &opts)
	nv, err := compilerOf(cc.API)
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w", op, name, err)
	}
	lto, ok := nv.(backend.NVRTCLTO)
	if !ok {
		return nil, fmt.Errorf("%s: %s: the run-time compiler (%s) gives no LTO-IR: %w", op, name, nv.Implementation(), errors.ErrUnsupported)
	}
	contents, includes := opts.headers()
	prog, err := nv.CreateProgram(src, name, contents, includes)
	if err != nil {
		return nil, fmt.Errorf("%s: %s: nvrtcCreateProgram: %w", op, name, err)
	}
	ir, err := compileLTOProgram(nv, lto, prog, name, opts, arch)
	// A failed destroy is tried once more, as Compile does; a second
	// failure is reported.
	derr := nv.DestroyProgram(prog)
	if derr != nil {
		derr = nv.DestroyProgram(prog)
	}
	if err != nil {
		return nil, err
	}
	if derr != nil {
		return nil, fmt.Errorf("%s: %s: nvrtcDestroyProgram: %w", op, name, derr)
	}
	return ir, nil
}

// compileLTOProgram compiles the created program prog with -dlto and reads
// its LTO-IR.
func compileLTOProgram(nv backend.NVRTC, lto backend.NVRTCLTO, prog uintptr, name string, opts Options, arch string) ([]byte, error) {
	const op = "module.CompileLTOIR"
	flags := append(opts.flags(arch), "-dlto")
	cerr := nv.Compile(prog, flags)
	log, lerr := nv.ProgramLog(prog)
	if lerr != nil && cerr == nil {
		return nil, fmt.Errorf("%s: %s: nvrtcGetProgramLog: %w", op, name, lerr)
	}
	log = strings.TrimRight(log, "\x00")
	if cerr != nil {
		return nil, &CompileError{Name: name, Arch: arch, Log: log, Options: opts.given(), Flags: flags, Err: cerr}
	}
	ir, err := lto.LTOIR(prog)
	if err != nil {
		return nil, fmt.Errorf("%s: %s (%s): nvrtcGetLTOIR: %w", op, name, arch, err)
	}
	return ir, nil
}

// linkLTO links inputs with nvJitLink (-lto, for ctx's device), for Link
// when an input is LTO-IR and the backend has nvJitLink; ok is false when
// it has none (Link then asks the driver's cuLink, as before nvJitLink).
func linkLTO(ctx *driver.Context, cc *core.Context, inputs []LinkInput) (image []byte, info string, ok bool, err error) {
	p, has := cc.API.(backend.JITLinkProvider)
	if !has {
		return nil, "", false, nil
	}
	jl, err := p.JITLinker()
	if err != nil {
		return nil, "", false, nil
	}
	ma, mi, err := computeCapability(cc.API, ctx.Device())
	if err != nil {
		return nil, "", true, err
	}
	ins := make([]backend.JITLinkInput, len(inputs))
	for i, in := range inputs {
		_, kind, _ := in.jitType()
		var k backend.JITLinkInputKind
		switch kind {
		case PTX:
			k = backend.JITLinkPTX
		case CUBIN:
			k = backend.JITLinkCUBIN
		case Fatbin:
			k = backend.JITLinkFatbin
		case LTOIR:
			k = backend.JITLinkLTOIR
		}
		ins[i] = backend.JITLinkInput{Kind: k, Data: in.Data, Name: in.Name}
	}
	image, info, err = jl.Link([]string{fmt.Sprintf("-arch=sm_%d%d", ma, mi), "-lto"}, ins)
	return image, info, true, err
}
