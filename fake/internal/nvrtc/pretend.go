package nvrtc

import (
	"fmt"
	"slices"
	"strings"

	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/fake/internal/cpp"
	"github.com/nocgo/cuda/internal/abi"
)

// The pretend compiler "compiles" CUDA C++ by finding its kernels: every
// __global__ function (and every name expression) needs a Go body
// registered with fake.Kernel, and the PTX it emits declares those entries
// with the bodies' parameters, so that ModuleLoadData on the fake can load
// it.

// pretend is the pretend compiler of a room.
type pretend struct{ r *Room }

type program struct {
	site fmt.Stringer // who made it, for Leaks

	src, name string
	headers   []string
	includes  []string
	exprs     []string

	compiled bool
	log      string
	ptx      []byte
	cubin    []byte // nil for a virtual architecture
	lowered  map[string]string

	// real is the program in NVIDIA's NVRTC, for a program of the real
	// compiler (see real.go); nil for the pretend compiler's.
	real *realProgram
}

var nvrtcNames = map[int]string{
	1: "NVRTC_ERROR_OUT_OF_MEMORY", 2: "NVRTC_ERROR_PROGRAM_CREATION_FAILURE",
	3: "NVRTC_ERROR_INVALID_INPUT", 4: "NVRTC_ERROR_INVALID_PROGRAM",
	5: "NVRTC_ERROR_INVALID_OPTION", 6: "NVRTC_ERROR_COMPILATION",
	7:  "NVRTC_ERROR_BUILTIN_OPERATION_FAILURE",
	8:  "NVRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION",
	9:  "NVRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION",
	10: "NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID", 11: "NVRTC_ERROR_INTERNAL_ERROR",
}

func nvrtcErr(code int, op string) error {
	name := nvrtcNames[code]
	if name == "" {
		name = fmt.Sprintf("NVRTC_ERROR_%d", code)
	}
	return &backend.NVRTCError{Code: code, Name: name, Op: op}
}

func (n pretend) enter(op string) error { return n.r.enter(op) }

func (n pretend) prog(h uintptr, op string) (*program, error) {
	n.r.mu.RLock()
	defer n.r.mu.RUnlock()
	p := n.r.progs[h]
	if p == nil {
		return nil, nvrtcErr(4, op)
	}
	return p, nil
}

// use is the start of an entry point on program h: op's fault rules, then
// the program.
func (n pretend) use(h uintptr, op string) (*program, error) {
	if err := n.enter(op); err != nil {
		return nil, err
	}
	return n.prog(h, op)
}

// Implementation returns "nocgo/cuda fake", so that the fake's kernels are
// never cached under NVIDIA's compiler.
func (n pretend) Implementation() string { return "nocgo/cuda fake" }

// Version is nvrtcVersion: 13.0.
func (n pretend) Version() (int, int, error) {
	if err := n.enter(abi.NvrtcVersion); err != nil {
		return 0, 0, err
	}
	return 13, 0, nil
}

// CreateProgram is nvrtcCreateProgram.
func (n pretend) CreateProgram(src, name string, headers, includeNames []string) (uintptr, error) {
	const op = abi.NvrtcCreateProgram
	if err := n.enter(op); err != nil {
		return 0, err
	}
	if len(headers) != len(includeNames) {
		return 0, nvrtcErr(3, op)
	}
	// NVRTC takes C strings: one with a NUL byte cannot be passed, and the
	// real backend refuses it with NVRTC_ERROR_INVALID_INPUT.
	if hasNUL(src) || hasNUL(name) || anyNUL(headers) || anyNUL(includeNames) {
		return 0, nvrtcErr(3, op)
	}
	if name == "" {
		name = "default_program"
	}
	p := &program{src: src, name: name, headers: append([]string(nil), headers...), includes: append([]string(nil), includeNames...), site: n.r.core.Site()}
	return n.r.add(p), nil
}

// AddNameExpression is nvrtcAddNameExpression (before Compile).
func (n pretend) AddNameExpression(h uintptr, expr string) error {
	const op = abi.NvrtcAddNameExpression
	if err := n.enter(op); err != nil {
		return err
	}
	if hasNUL(expr) {
		// As the real backend, which cannot pass it as a C string.
		return nvrtcErr(3, op)
	}
	p, err := n.prog(h, op)
	if err != nil {
		return err
	}
	if expr == "" {
		return nvrtcErr(3, op)
	}
	n.r.mu.Lock()
	defer n.r.mu.Unlock()
	if p.compiled {
		return nvrtcErr(8, op)
	}
	for _, e := range p.exprs {
		if e == expr {
			return nil
		}
	}
	p.exprs = append(p.exprs, expr)
	return nil
}

// ProgramLog is nvrtcGetProgramLog.
func (n pretend) ProgramLog(h uintptr) (string, error) {
	const op = abi.NvrtcGetProgramLog
	p, err := n.use(h, op)
	if err != nil {
		return "", err
	}
	n.r.mu.RLock()
	defer n.r.mu.RUnlock()
	return p.log, nil
}

// PTX is nvrtcGetPTX.
func (n pretend) PTX(h uintptr) ([]byte, error) {
	const op = abi.NvrtcGetPTX
	p, err := n.use(h, op)
	if err != nil {
		return nil, err
	}
	n.r.mu.RLock()
	defer n.r.mu.RUnlock()
	if !p.compiled {
		return nil, nvrtcErr(4, op)
	}
	return append([]byte(nil), p.ptx...), nil
}

// CUBIN is nvrtcGetCUBIN: an error (NVRTC_ERROR_INVALID_INPUT) when the
// program was compiled for a virtual architecture (compute_XX).
func (n pretend) CUBIN(h uintptr) ([]byte, error) {
	const op = abi.NvrtcGetCUBIN
	p, err := n.use(h, op)
	if err != nil {
		return nil, err
	}
	n.r.mu.RLock()
	defer n.r.mu.RUnlock()
	if !p.compiled {
		return nil, nvrtcErr(4, op)
	}
	if p.cubin == nil {
		return nil, nvrtcErr(3, op)
	}
	return append([]byte(nil), p.cubin...), nil
}

// LoweredName is nvrtcGetLoweredName. The fake's lowered names are valid
// PTX identifiers in the style of C++ mangling, not the real ones:
// "scale<float>" lowers to "_Z5scaleI5floatE"; a plain name stays itself.
func (n pretend) LoweredName(h uintptr, expr string) (string, error) {
	const op = abi.NvrtcGetLoweredName
	if err := n.enter(op); err != nil {
		return "", err
	}
	if hasNUL(expr) {
		// As the real backend, which cannot pass it as a C string.
		return "", nvrtcErr(10, op)
	}
	p, err := n.prog(h, op)
	if err != nil {
		return "", err
	}
	n.r.mu.RLock()
	defer n.r.mu.RUnlock()
	if !p.compiled {
		return "", nvrtcErr(9, op)
	}
	l, ok := p.lowered[expr]
	if !ok {
		return "", nvrtcErr(10, op)
	}
	return l, nil
}

// DestroyProgram is nvrtcDestroyProgram.
func (n pretend) DestroyProgram(h uintptr) error {
	const op = abi.NvrtcDestroyProgram
	if err := n.enter(op); err != nil {
		return err
	}
	n.r.mu.Lock()
	defer n.r.mu.Unlock()
	if n.r.progs[h] == nil {
		return nvrtcErr(4, op)
	}
	delete(n.r.progs, h)
	return nil
}

func hasNUL(s string) bool { return strings.IndexByte(s, 0) >= 0 }

func anyNUL(list []string) bool {
	for _, s := range list {
		if hasNUL(s) {
			return true
		}
	}
	return false
}

// Compile is nvrtcCompileProgram. See the package doc for what the fake
// compiler checks.
func (n pretend) Compile(h uintptr, options []string) error {
	const op = abi.NvrtcCompileProgram
	if err := n.enter(op); err != nil {
		return err
	}
	if anyNUL(options) {
		// As the real backend, which cannot pass it as a C string.
		return nvrtcErr(5, op)
	}
	p, err := n.prog(h, op)
	if err != nil {
		return err
	}
	opts, optLog, ok := parseOptions(options)
	if !ok {
		n.r.mu.Lock()
		p.log = optLog
		n.r.mu.Unlock()
		return nvrtcErr(5, op)
	}
	// The program's inputs are fixed but for its name expressions: read
	// them under the room's lock, and compile with none held, as the core's
	// kernel table is asked.
	n.r.mu.RLock()
	exprs := slices.Clone(p.exprs)
	n.r.mu.RUnlock()
	log, entries, lowered := n.r.compile(p, exprs, opts)
	if entries == nil {
		n.r.mu.Lock()
		p.log = log
		n.r.mu.Unlock()
		return nvrtcErr(6, op)
	}
	target := fmt.Sprintf("sm_%d%s", opts.arch, opts.suffix)
	var sb strings.Builder
	// The oldest PTX ISA version that has the target: what the pretend
	// compiler writes uses nothing newer, and so every driver that knows
	// the target loads it.
	sb.WriteString("//\n// Generated by fake NVRTC\n//\n.version " + pretendPTXVersion(opts.arch) + "\n.target " + target + "\n.address_size 64\n")
	for _, e := range entries {
		fmt.Fprintf(&sb, "\n.visible .entry %s(\n%s\n)\n{\n\tret;\n}\n", e, n.r.core.EntryParams(e))
	}
	ptx := []byte(sb.String())
	var cubin []byte
	if !opts.virtual {
		cubin = append([]byte(abi.ELFMagic), ptx...)
	}
	n.r.mu.Lock()
	defer n.r.mu.Unlock()
	p.log = log
	p.ptx = ptx
	p.cubin = cubin
	p.lowered = lowered
	p.compiled = true
	return nil
}

// compile checks the source of p, with the name expressions exprs, and
// returns the log and the entry names (nil when the compile fails) and the
// lowered names of the expressions. It reads only p's fields fixed at its
// creation, and takes no lock of the room.
func (r *Room) compile(p *program, exprs []string, o compileOpts) (string, []string, map[string]string) {
	var errs []string
	errorf := func(line int, format string, args ...any) {
		errs = append(errs, fmt.Sprintf("%s(%d): error: %s", p.name, line, fmt.Sprintf(format, args...)))
	}
	pp := cpp.Preprocess(cpp.Unit{Name: p.name, Source: p.src, HeaderNames: p.includes, Headers: p.headers,
		IncludePaths: o.includePaths, Macros: o.macros})
	errs, warns, lines := pp.Errors, pp.Warnings, pp.Lines
	if pp.Catastrophic {
		// A catastrophic error ends the compile there, as in NVRTC.
		count := "1 catastrophic error"
		switch len(errs) {
		case 1:
		case 2:
			count = "1 error and " + count
		default:
			count = fmt.Sprintf("%d errors and %s", len(errs)-1, count)
		}
		return fmt.Sprintf("%s\n\n%s detected in the compilation of %q.\nCompilation terminated.\n",
			strings.Join(append(warns, errs...), "\n"), count, p.name), nil, nil
	}
	cpp.CheckBraces(lines, errorf)
	kernels := cpp.FindKernels(lines)
	var entries []string
	templates := map[string]bool{}
	for _, k := range kernels {
		if k.Template {
			templates[k.Name] = true
			continue
		}
		body, ok := r.core.Body(k.Name)
		switch {
		case !ok:
			errorf(k.Line, "fake NVRTC: kernel %q has no Go body; register one with fake.Kernel%s", k.Name, r.noNVRTC())
		case body.Err != nil:
			errorf(k.Line, "fake NVRTC: kernel %q: %v", k.Name, body.Err)
		case k.Params >= 0 && k.Params != body.Params:
			errorf(k.Line, "fake NVRTC: kernel %q takes %d parameters but its Go body takes %d", k.Name, k.Params, body.Params)
		default:
			entries = append(entries, k.Name)
		}
	}
	lowered := map[string]string{}
	for _, e := range exprs {
		name := strings.TrimPrefix(strings.TrimSpace(e), "&")
		base, _, _ := strings.Cut(name, "<")
		base = strings.TrimSpace(base)
		body, ok := r.core.Body(name)
		switch {
		case !templates[base] && !containsKernel(kernels, base):
			errorf(1, "identifier %q is undefined (name expression %q)", base, e)
		case !ok:
			errorf(1, "fake NVRTC: kernel %q has no Go body; register one with fake.Kernel%s", name, r.noNVRTC())
		case body.Err != nil:
			errorf(1, "fake NVRTC: kernel %q: %v", name, body.Err)
		default:
			low := body.Lowered
			lowered[e] = low
			if !contains(entries, low) {
				entries = append(entries, low)
			}
		}
	}
	if len(errs) > 0 {
		word := "errors"
		if len(errs) == 1 {
			word = "error"
		}
		return fmt.Sprintf("%s\n\n%d %s detected in the compilation of %q.\n", strings.Join(append(warns, errs...), "\n"), len(errs), word, p.name), nil, nil
	}
	if entries == nil {
		entries = []string{}
	}
	log := ""
	if len(warns) > 0 {
		log = strings.Join(warns, "\n") + "\n"
	}
	return log, entries, lowered
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func containsKernel(ks []cpp.Kernel, name string) bool {
	for _, k := range ks {
		if k.Name == name {
			return true
		}
	}
	return false
}

// pretendPTXVersion is the .version the pretend compiler writes for sm_arch:
// the oldest PTX ISA version that can target it (abi.OldestPTX), or 8.8 for
// an architecture newer than that table.
func pretendPTXVersion(arch int) string {
	v, ok := abi.OldestPTX(arch)
	if !ok {
		v = 88
	}
	return fmt.Sprintf("%d.%d", v/10, v%10)
}
