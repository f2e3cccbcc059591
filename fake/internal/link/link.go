package link

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/abi"
	"github.com/nocgo/cuda/internal/cstr"
)

// Link is backend.Linker's Link: the fake's linker (cuLinkCreate, cuLinkAddData per input,
// cuLinkComplete, cuLinkDestroy: each counts, and FailNth can fail it).
// The fake runs no machine code, so it links PTX only, and only what needs
// no symbol resolution: it combines PTX inputs that each stand alone (no
// .extern declarations) into one PTX module holding every input's kernels,
// functions and variables, which ModuleLoadData then checks as usual. It
// refuses, with the reason in the error log:
//
//   - no inputs, an unknown input type, empty data or a name with a NUL
//     byte: ErrInvalidValue, as the real backend does before any call;
//   - CUBIN, fatbin, object, library and LTO-IR inputs: ErrNotSupported;
//   - PTX with .extern references to other inputs: ErrNotSupported (the
//     fake does not resolve symbols across inputs);
//   - two inputs defining the same kernel, function or variable:
//     ErrInvalidImage.
func (r *Room) Link(inputs []backend.LinkInput, verbose bool) ([]byte, backend.JITLog, error) {
	var log backend.JITLog
	if len(inputs) == 0 {
		return nil, log, driver.ErrInvalidValue
	}
	for _, in := range inputs {
		if !in.Type.Valid() || len(in.Data) == 0 {
			return nil, log, driver.ErrInvalidValue
		}
		if _, err := cstr.Bytes(in.Name); err != nil {
			return nil, log, driver.ErrInvalidValue
		}
	}
	if err := r.enter(abi.CuLinkCreate); err != nil {
		return nil, log, err
	}
	if err := r.core.Current(); err != nil {
		return nil, log, err
	}
	image, log, err := r.linkInputs(inputs, verbose)
	if derr := r.enter(abi.CuLinkDestroy); derr != nil && err == nil {
		return nil, log, derr
	}
	return image, log, err
}

// linkInputs is the fake's cuLinkAddData and cuLinkComplete.
func (r *Room) linkInputs(inputs []backend.LinkInput, verbose bool) ([]byte, backend.JITLog, error) {
	var log backend.JITLog
	refuse := func(err error, format string, args ...any) ([]byte, backend.JITLog, error) {
		log.Error = "fake nvlink error: " + fmt.Sprintf(format, args...)
		return nil, log, err
	}
	var out bytes.Buffer
	defined := map[string]string{} // symbol -> input name
	for i, in := range inputs {
		if err := r.enter(abi.CuLinkAddData); err != nil {
			return nil, log, err
		}
		if in.Type != backend.JITInputPTX {
			return refuse(driver.ErrNotSupported, "input %q: the fake links PTX only, not %s", in.Name, inputTypeName(in.Type))
		}
		text := string(bytes.TrimRight(in.Data, "\x00"))
		if m := externRE.FindStringSubmatch(text); m != nil {
			return refuse(driver.ErrNotSupported, "input %q: .extern %s: the fake does not resolve symbols across inputs", in.Name, m[1])
		}
		for _, m := range definitionRE.FindAllStringSubmatch(text, -1) {
			if other, ok := defined[m[1]]; ok {
				return refuse(driver.ErrInvalidImage, "multiple definition of '%s' in %q, first defined in %q", m[1], in.Name, other)
			}
			defined[m[1]] = in.Name
		}
		if i > 0 {
			text = headerRE.ReplaceAllString(text, "")
		}
		out.WriteString(text)
		out.WriteString("\n")
		if verbose {
			log.Info += fmt.Sprintf("fake nvlink info: added PTX input %q (%d bytes)\n", in.Name, len(in.Data))
		}
	}
	if err := r.enter(abi.CuLinkComplete); err != nil {
		return nil, log, err
	}
	log.Info = strings.TrimRight(log.Info, "\n")
	return out.Bytes(), log, nil
}

var (
	// externRE finds a PTX .extern declaration and its symbol.
	externRE = regexp.MustCompile(`(?m)^\s*\.extern\s+(?:\.\w+\s+)*?(?:\([^)]*\)\s*)?([A-Za-z_$%][\w$]*)`)
	// definitionRE finds what a PTX module defines: kernels, functions and
	// module-scope variables, by name.
	definitionRE = regexp.MustCompile(`(?m)^\s*(?:\.visible\s+|\.weak\s+)?(?:\.entry|\.func(?:\s*\([^)]*\))?|\.global(?:\s+(?:\.\w+|\d+))+|\.const(?:\s+(?:\.\w+|\d+))+)\s+([A-Za-z_$%][\w$]*)`)
	// headerRE finds the module directives an input after the first must
	// not repeat.
	headerRE = regexp.MustCompile(`(?m)^\s*\.(?:version|target|address_size)\b[^\n]*$`)
)

// inputTypeName names a CUjitInputType for the log.
func inputTypeName(t backend.JITInputType) string {
	switch t {
	case backend.JITInputCUBIN:
		return "CUBIN"
	case backend.JITInputFatbin:
		return "fatbin"
	case backend.JITInputObject:
		return "object"
	case backend.JITInputLibrary:
		return "library"
	case backend.JITInputLTOIR:
		return "LTO-IR"
	}
	return "PTX"
}

var _ backend.Linker = (*Room)(nil)
