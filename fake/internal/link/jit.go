package link

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/abi"
	"github.com/nocgo/cuda/internal/ptx"
)

// ModuleLoadDataEx is backend.ModuleJIT's: cuModuleLoadDataEx with the JIT's logs: the image is
// loaded as by ModuleLoadData (so the same checks and the same results,
// and a call that FailNth("cuModuleLoadData", ...) also counts), and the
// logs say what the fake's PTX checks found. A refused image's error log
// names the result and, for PTX text, what is wrong with it where the PTX
// reader can tell; with verbose, the info log of a successful load names
// each kernel compiled, as ptxas's verbose output does (the fake reports no
// register counts there: FuncGetAttribute has its resources).
func (r *Room) ModuleLoadDataEx(image []byte, verbose bool) (uintptr, backend.JITLog, error) {
	if err := r.enter(abi.CuModuleLoadDataEx); err != nil {
		return 0, backend.JITLog{}, err
	}
	before := r.core.LoadError()
	h, err := r.core.ModuleLoadData(image)
	if err != nil {
		log := jitErrorLog(image, err)
		if le := r.core.LoadError(); le != nil && le != before {
			// What the PTX interpreter refused in this image, with its line.
			log += "\nfake ptxas error: " + le.Error()
		}
		return 0, backend.JITLog{Error: log}, err
	}
	var log backend.JITLog
	if verbose {
		log.Info = r.jitInfoLog(h)
	}
	return h, log, nil
}

// jitErrorLog describes why image was refused with err.
func jitErrorLog(image []byte, err error) string {
	var b strings.Builder
	fmt.Fprintf(&b, "fake ptxas fatal: %v", err)
	if errors.Is(err, backend.ErrUnsupportedPTXVersion) {
		b.WriteString("\nfake ptxas error: the PTX's .version is newer than this driver's JIT takes")
	}
	if isPTXText(image) {
		text := string(bytes.TrimRight(image, "\x00"))
		if _, perr := ptx.Read(text); perr != nil {
			fmt.Fprintf(&b, "\nfake ptxas error: %v", perr)
		}
		if !strings.Contains(text, ".version") || !strings.Contains(text, ".target") {
			b.WriteString("\nfake ptxas error: PTX must start with .version and .target directives")
		}
	}
	return b.String()
}

// isPTXText reports whether image is neither a CUBIN nor a fatbin.
func isPTXText(image []byte) bool {
	return !bytes.HasPrefix(image, []byte(abi.ELFMagic)) && !bytes.HasPrefix(image, []byte(abi.FatbinMagic))
}

// jitInfoLog lists the kernels of module h.
func (r *Room) jitInfoLog(h uintptr) string {
	var s strings.Builder
	for _, name := range r.core.Kernels(h) {
		fmt.Fprintf(&s, "fake ptxas info: Compiling entry function '%s'\n", name)
	}
	return strings.TrimRight(s.String(), "\n")
}

var _ backend.ModuleJIT = (*Room)(nil)
