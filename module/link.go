package module

import (
	"errors"
	"fmt"
	"strings"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/core"
)

// LTOIR is the kind of an LTO-IR input of Link (NVVM IR produced by NVRTC
// with -dlto); Load does not take it.
const LTOIR ImageKind = Fatbin + 1

// LinkInput is one input of Link: device code and the name the linker's
// messages call it by. Kind is PTX, CUBIN, Fatbin or LTOIR; zero means
// DetectKind(Data).
type LinkInput struct {
	Name string
	Kind ImageKind
	Data []byte
}

// jitType returns the CUjitInputType of the input.
func (in *LinkInput) jitType() (backend.JITInputType, ImageKind, bool) {
	k := in.Kind
	if k == 0 {
		k = DetectKind(in.Data)
	}
	switch k {
	case PTX:
		return backend.JITInputPTX, k, true
	case CUBIN:
		return backend.JITInputCUBIN, k, true
	case Fatbin:
		return backend.JITInputFatbin, k, true
	case LTOIR:
		return backend.JITInputLTOIR, k, true
	}
	return 0, k, false
}

// Link links inputs into one module and loads it into ctx: PTX, CUBINs,
// fatbins and LTO-IR, compiled with relocatable device code (-rdc, or
// -dlto for LTO-IR) where one input calls functions another defines
// (cuLinkCreate, cuLinkAddData, cuLinkComplete, cuLinkDestroy; then
// cuModuleLoadData of the result). The caller owns the Module: Close it.
// Its JITLog is the linker's info log.
//
// A link with LTO-IR inputs (from CompileLTOIR) goes to nvJitLink
// (libnvJitLink, opened on first use: -arch of ctx's device, -lto), where
// the backend has it, and the CUBIN it links is loaded; a failed link is a
// *LoadError with nvJitLink's error log. Where the backend has no nvJitLink
// (the fake, or no libnvJitLink installed), LTO-IR goes to the driver as
// CU_JIT_INPUT_NVVM, which links it only where its cuLink still supports
// link-time optimisation (CUDA 12 deprecated it in favour of nvJitLink).
//
// An input set the linker refuses (an undefined or duplicate symbol, an
// input for another architecture) returns a *LoadError with the linker's
// error log. Inputs with no data, an unknown kind or a name with a NUL
// byte are refused before the driver is called. On the fake, Link combines
// PTX inputs that need no symbol resolution and refuses the rest (see
// fake.Backend.Link). A backend without cuLink* gives an error wrapping
// errors.ErrUnsupported.
func Link(ctx *driver.Context, inputs ...LinkInput) (*Module, error) {
	const op = "module.Link"
	c := core.ContextOf(ctx)
	if c == nil {
		return nil, fmt.Errorf("%s: nil context: %w", op, driver.ErrInvalidInput)
	}
	if ctx.Closed() {
		return nil, fmt.Errorf("%s: %s: %w", op, ctx, driver.ErrClosed)
	}
	if len(inputs) == 0 {
		return nil, fmt.Errorf("%s: no inputs: %w", op, driver.ErrInvalidInput)
	}
	ins := make([]backend.LinkInput, len(inputs))
	names := make([]string, len(inputs))
	for i, in := range inputs {
		t, kind, ok := in.jitType()
		switch {
		case !ok:
			return nil, fmt.Errorf("%s: input %d (%q): unknown kind %v: %w", op, i, in.Name, kind, driver.ErrInvalidInput)
		case len(in.Data) == 0:
			return nil, fmt.Errorf("%s: input %d (%q): no data: %w", op, i, in.Name, driver.ErrInvalidInput)
		case strings.IndexByte(in.Name, 0) >= 0:
			return nil, fmt.Errorf("%s: input %d (%q): bad name: %w", op, i, in.Name, driver.ErrInvalidInput)
		}
		ins[i] = backend.LinkInput{Type: t, Data: in.Data, Name: in.Name}
		names[i] = fmt.Sprintf("%s %s", kind, in.Name)
	}
	for _, in := range inputs {
		if _, kind, _ := in.jitType(); kind != LTOIR {
			continue
		}
		image, info, ok, err := linkLTO(ctx, c, inputs)
		if !ok {
			break // no nvJitLink: the driver's cuLink, below
		}
		if err != nil {
			var je *backend.JITLinkError
			if errors.As(err, &je) {
				return nil, fmt.Errorf("%s: %w", op, &LoadError{What: "link of " + strings.Join(names, ", "), Call: "nvJitLink", Log: je.Log, Info: info, Err: err})
			}
			return nil, fmt.Errorf("%s: nvJitLink: %w", op, err)
		}
		return loadLinked(ctx, op, image, info)
	}
	linker, ok := c.API.(backend.Linker)
	if !ok {
		return nil, fmt.Errorf("%s: the backend has no cuLink*: %w", op, errors.ErrUnsupported)
	}
	what := fmt.Sprintf("link of %s", strings.Join(names, ", "))
	var image []byte
	var info string
	err := c.Do(func(backend.API) error {
		var log backend.JITLog
		var r error
		if image, log, r = linker.Link(ins, true); r != nil {
			return &LoadError{What: what, Call: "cuLink", Log: log.Error, Info: log.Info, Err: r}
		}
		info = log.Info
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	return loadLinked(ctx, op, image, info)
}

// loadLinked loads a linker's output into ctx, with the linker's info log
// before the load's in JITLog.
func loadLinked(ctx *driver.Context, op string, image []byte, info string) (*Module, error) {
	kind := DetectKind(image)
	var text []byte
	if kind == PTX {
		text = image
	}
	m, err := load(ctx, image, kind, text)
	if err != nil {
		return nil, fmt.Errorf("%s: loading the linked image: %w", op, err)
	}
	if info != "" {
		m.jitLog = strings.TrimSpace(info + "\n" + m.jitLog)
	}
	return m, nil
}
