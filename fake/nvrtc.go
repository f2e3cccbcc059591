package fake

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/fake/internal/cpp"
	"github.com/nocgo/cuda/internal/abi"
)

// The fake NVRTC "compiles" CUDA C++ by finding its kernels: every
// __global__ function (and every name expression) needs a Go body
// registered with Kernel, and the PTX it emits declares those entries with
// the bodies' parameters, so that ModuleLoadData on the fake can load it.

// NVRTC returns the run-time compiler of this backend: NVIDIA's libnvrtc
// when one is found or given (see the package doc, NVRTC and PretendNVRTC),
// else the fake's pretend compiler.
func (b *fakeBackend) NVRTC() (backend.NVRTC, error) {
	if nv := b.realCompiler(); nv != nil {
		return realNVRTC{b, nv}, nil
	}
	return nvrtc{b}, nil
}

type nvrtc struct{ b *fakeBackend }

type program struct {
	site callSite // who made it, for Leaks (leak_site.go)

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
	// compiler (see nvrtc_real.go); nil for the pretend compiler's.
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

// enter applies FailNth to an NVRTC entry point (the rule's code is taken as
// an nvrtcResult).
func (n nvrtc) enter(op string) error {
	if err := n.b.fault(op); err != nil {
		return nvrtcErr(int(err.(driver.Result)), op)
	}
	return nil
}

func (n nvrtc) prog(h uintptr, op string) (*program, error) {
	n.b.mu.RLock()
	defer n.b.mu.RUnlock()
	p := n.b.progs[h]
	if p == nil {
		return nil, nvrtcErr(4, op)
	}
	return p, nil
}

// Implementation returns "nocgo/cuda fake", so that the fake's kernels are
// never cached under NVIDIA's compiler.
func (n nvrtc) Implementation() string { return "nocgo/cuda fake" }

// Version is nvrtcVersion: 13.0.
func (n nvrtc) Version() (int, int, error) {
	if err := n.enter(abi.NvrtcVersion); err != nil {
		return 0, 0, err
	}
	return 13, 0, nil
}

// CreateProgram is nvrtcCreateProgram.
func (n nvrtc) CreateProgram(src, name string, headers, includeNames []string) (uintptr, error) {
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
	p := &program{src: src, name: name, headers: append([]string(nil), headers...), includes: append([]string(nil), includeNames...), site: here()}
	h := newHandle()
	n.b.mu.Lock()
	n.b.progs[h] = p
	n.b.mu.Unlock()
	return h, nil
}

// AddNameExpression is nvrtcAddNameExpression (before Compile).
func (n nvrtc) AddNameExpression(h uintptr, expr string) error {
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
	n.b.mu.Lock()
	defer n.b.mu.Unlock()
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
func (n nvrtc) ProgramLog(h uintptr) (string, error) {
	const op = abi.NvrtcGetProgramLog
	if err := n.enter(op); err != nil {
		return "", err
	}
	p, err := n.prog(h, op)
	if err != nil {
		return "", err
	}
	n.b.mu.RLock()
	defer n.b.mu.RUnlock()
	return p.log, nil
}

// PTX is nvrtcGetPTX.
func (n nvrtc) PTX(h uintptr) ([]byte, error) {
	const op = abi.NvrtcGetPTX
	if err := n.enter(op); err != nil {
		return nil, err
	}
	p, err := n.prog(h, op)
	if err != nil {
		return nil, err
	}
	n.b.mu.RLock()
	defer n.b.mu.RUnlock()
	if !p.compiled {
		return nil, nvrtcErr(4, op)
	}
	return append([]byte(nil), p.ptx...), nil
}

// CUBIN is nvrtcGetCUBIN: an error (NVRTC_ERROR_INVALID_INPUT) when the
// program was compiled for a virtual architecture (compute_XX).
func (n nvrtc) CUBIN(h uintptr) ([]byte, error) {
	const op = abi.NvrtcGetCUBIN
	if err := n.enter(op); err != nil {
		return nil, err
	}
	p, err := n.prog(h, op)
	if err != nil {
		return nil, err
	}
	n.b.mu.RLock()
	defer n.b.mu.RUnlock()
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
func (n nvrtc) LoweredName(h uintptr, expr string) (string, error) {
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
	n.b.mu.RLock()
	defer n.b.mu.RUnlock()
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
func (n nvrtc) DestroyProgram(h uintptr) error {
	const op = abi.NvrtcDestroyProgram
	if err := n.enter(op); err != nil {
		return err
	}
	n.b.mu.Lock()
	defer n.b.mu.Unlock()
	if n.b.progs[h] == nil {
		return nvrtcErr(4, op)
	}
	delete(n.b.progs, h)
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

// compileOpts is what the fake takes from the options.
type compileOpts struct {
	arch    int
	suffix  string // "a", "f" or ""
	virtual bool
	macros  map[string]string

	includePaths []string
}

// nvrtcOptions are the option names NVRTC 13.0 accepts (besides the
// architecture, -std, -D, -U and -I, parsed above); anything else is
// NVRTC_ERROR_INVALID_OPTION.
var nvrtcOptions = map[string]bool{}

// takesValue are the options among them that take a value.
var takesValue = map[string]bool{}

func init() {
	for _, o := range strings.Fields(`
		--device-c -dc --device-w -dw --relocatable-device-code -rdc
		--extensible-whole-program -ewp --device-debug -G --generate-line-info -lineinfo
		--dopt -dopt --ptxas-options -Xptxas --maxrregcount -maxrregcount
		--ftz -ftz --prec-sqrt -prec-sqrt --prec-div -prec-div --fmad -fmad
		--use_fast_math -use_fast_math --extra-device-vectorization -extra-device-vectorization
		--modify-stack-limit -modify-stack-limit --dlink-time-opt -dlto --gen-opt-lto -gen-opt-lto
		--optix-ir -optix-ir --jump-table-density -jtd --pre-include -include
		--no-source-include -no-source-include --builtin-move-forward -builtin-move-forward
		--builtin-initializer-list -builtin-initializer-list --disable-warnings -w
		--restrict -restrict --device-as-default-execution-space -default-device
		--device-int128 -device-int128 --optimization-info -opt-info
		--display-error-number -err-no --no-display-error-number -no-err-no
		--diag-error -diag-error --diag-suppress -diag-suppress --diag-warn -diag-warn
		--brief-diagnostics -brief-diag --time -time --split-compile -split-compile
		--fdevice-syntax-only -fdevice-syntax-only --minimal -minimal
		--device-stack-protector -device-stack-protector --fdevice-time-trace -fdevice-time-trace
		--pch -pch --create-pch -create-pch --use-pch -use-pch --pch-dir -pch-dir
		--pch-verbose -pch-verbose --pch-messages -pch-messages
		--instantiate-templates-in-pch -instantiate-templates-in-pch
		--Ofast-compile -Ofast-compile --frandom-seed -frandom-seed
		-O0 -O1 -O2 -O3 --dopt-level`) {
		nvrtcOptions[o] = true
	}
	for _, o := range strings.Fields(`--ptxas-options -Xptxas --maxrregcount -maxrregcount
		--pre-include -include --diag-error -diag-error --diag-suppress -diag-suppress
		--diag-warn -diag-warn --create-pch -create-pch --use-pch -use-pch --pch-dir -pch-dir
		--split-compile -split-compile --time -time --fdevice-time-trace -fdevice-time-trace
		--frandom-seed -frandom-seed`) {
		takesValue[o] = true
	}
}

var archRe = regexp.MustCompile(`^(sm|compute)_(\d+)([af]?)$`)

// knownArchs are the architectures NVRTC 13.0 compiles for.
var knownArchs = map[int]bool{75: true, 80: true, 86: true, 87: true, 88: true, 89: true, 90: true, 100: true, 103: true, 110: true, 120: true, 121: true}

func parseOptions(options []string) (compileOpts, string, bool) {
	o := compileOpts{arch: 75, virtual: true, macros: map[string]string{}}
	for i := 0; i < len(options); i++ {
		opt := options[i]
		val := func(prefixes ...string) (string, bool) {
			for _, p := range prefixes {
				if strings.HasPrefix(opt, p+"=") {
					return opt[len(p)+1:], true
				}
				if opt == p && i+1 < len(options) {
					i++
					return options[i], true
				}
			}
			return "", false
		}
		if v, ok := val("--gpu-architecture", "-arch"); ok {
			m := archRe.FindStringSubmatch(v)
			if m == nil {
				return o, "nvrtc: error: invalid value for --gpu-architecture (-arch)\n", false
			}
			n, _ := strconv.Atoi(m[2])
			if !knownArchs[n] {
				return o, "nvrtc: error: invalid value for --gpu-architecture (-arch)\n", false
			}
			o.arch, o.suffix, o.virtual = n, m[3], m[1] == "compute"
			continue
		}
		if v, ok := val("--std", "-std"); ok {
			switch v {
			case "c++03", "c++11", "c++14", "c++17", "c++20":
				continue
			}
			return o, fmt.Sprintf("nvrtc: error: invalid value for --std (-std): %s\n", v), false
		}
		if v, ok := val("--define-macro", "-D"); ok || strings.HasPrefix(opt, "-D") {
			if !ok {
				v = opt[2:]
			}
			name, value, found := strings.Cut(v, "=")
			if !found {
				value = "1"
			}
			o.macros[name] = value
			continue
		}
		if v, ok := val("--include-path", "-I"); ok || strings.HasPrefix(opt, "-I") {
			if !ok {
				v = opt[2:]
			}
			o.includePaths = append(o.includePaths, v)
			continue
		}
		if _, ok := val("--undefine-macro", "-U"); ok || strings.HasPrefix(opt, "-U") {
			continue
		}
		name, _, _ := strings.Cut(opt, "=")
		if !nvrtcOptions[name] {
			return o, fmt.Sprintf("nvrtc: error: unrecognized option %s found\n", opt), false
		}
		if takesValue[name] && !strings.Contains(opt, "=") {
			i++ // "-maxrregcount 32"
		}
	}
	return o, "", true
}

// Compile is nvrtcCompileProgram. See the package doc for what the fake
// compiler checks.
func (n nvrtc) Compile(h uintptr, options []string) error {
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
	n.b.mu.Lock()
	defer n.b.mu.Unlock()
	if !ok {
		p.log = optLog
		return nvrtcErr(5, op)
	}
	log, entries, lowered := n.b.compileLocked(p, opts)
	p.log = log
	if entries == nil {
		return nvrtcErr(6, op)
	}
	target := fmt.Sprintf("sm_%d%s", opts.arch, opts.suffix)
	var sb strings.Builder
	// The oldest PTX ISA version that has the target: what the pretend
	// compiler writes uses nothing newer, and so every driver that knows
	// the target loads it.
	sb.WriteString("//\n// Generated by fake NVRTC\n//\n.version " + pretendPTXVersion(opts.arch) + "\n.target " + target + "\n.address_size 64\n")
	for _, e := range entries {
		k := n.b.kernelForEntryLocked(e)
		fmt.Fprintf(&sb, "\n.visible .entry %s(\n%s\n)\n{\n\tret;\n}\n", e, k.ptxParams(e))
	}
	p.ptx = []byte(sb.String())
	p.cubin = nil
	if !opts.virtual {
		p.cubin = append(append([]byte(nil), elfMagic...), p.ptx...)
	}
	p.lowered = lowered
	p.compiled = true
	return nil
}

// compileLocked checks the source and returns the log and the entry names
// (nil when the compile fails) and the lowered names of the expressions.
func (b *fakeBackend) compileLocked(p *program, o compileOpts) (string, []string, map[string]string) {
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
		body := b.kernels[k.Name]
		switch {
		case body == nil:
			errorf(k.Line, "fake NVRTC: kernel %q has no Go body; register one with fake.Kernel%s", k.Name, b.noNVRTC())
		case body.err != nil:
			errorf(k.Line, "fake NVRTC: kernel %q: %v", k.Name, body.err)
		case k.Params >= 0 && k.Params != len(body.params):
			errorf(k.Line, "fake NVRTC: kernel %q takes %d parameters but its Go body takes %d", k.Name, k.Params, len(body.params))
		default:
			entries = append(entries, k.Name)
		}
	}
	lowered := map[string]string{}
	for _, e := range p.exprs {
		name := strings.TrimPrefix(strings.TrimSpace(e), "&")
		base, _, _ := strings.Cut(name, "<")
		base = strings.TrimSpace(base)
		body := b.kernels[name]
		switch {
		case !templates[base] && !containsKernel(kernels, base):
			errorf(1, "identifier %q is undefined (name expression %q)", base, e)
		case body == nil:
			errorf(1, "fake NVRTC: kernel %q has no Go body; register one with fake.Kernel%s", name, b.noNVRTC())
		case body.err != nil:
			errorf(1, "fake NVRTC: kernel %q: %v", name, body.err)
		default:
			low := body.lowered
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

// noNVRTC says, for a kernel the pretend compiler cannot compile, why
// NVIDIA's compiler (which would compile it, no Go body needed) is not in
// use: not found where it was looked for. Empty when the pretend compiler
// was chosen (PretendNVRTC).
func (b *fakeBackend) noNVRTC() string {
	if b.compiler.missing == nil {
		return ""
	}
	return fmt.Sprintf(", or install NVIDIA's libnvrtc, which compiles it with none (%v)", b.compiler.missing)
}

// pretendPTXVersion is the .version the pretend compiler writes for sm_arch:
// the oldest PTX ISA version that can target it (minPTXVersion), or 8.8 for
// an architecture newer than that table.
func pretendPTXVersion(arch int) string {
	v, ok := minPTXVersion[arch]
	if !ok {
		v = 88
	}
	return fmt.Sprintf("%d.%d", v/10, v%10)
}
