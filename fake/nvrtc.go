package fake

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/abi"
)

// The fake NVRTC "compiles" CUDA C++ by finding its kernels: every
// __global__ function (and every name expression) needs a Go body
// registered with Kernel, and the PTX it emits declares those entries with
// the bodies' parameters, so that ModuleLoadData on the fake can load it.

// NVRTC returns the run-time compiler of this backend: NVIDIA's libnvrtc
// when one is found or given (see the package doc, NVRTC and PretendNVRTC),
// else the fake's pretend compiler.
func (b *Backend) NVRTC() (backend.NVRTC, error) {
	if nv := b.realCompiler(); nv != nil {
		return realNVRTC{b, nv}, nil
	}
	return nvrtc{b}, nil
}

type nvrtc struct{ b *Backend }

type program struct {
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
	p := &program{src: src, name: name, headers: append([]string(nil), headers...), includes: append([]string(nil), includeNames...)}
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
	sb.WriteString("//\n// Generated by fake NVRTC\n//\n.version 8.8\n.target " + target + "\n.address_size 64\n")
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
func (b *Backend) compileLocked(p *program, o compileOpts) (string, []string, map[string]string) {
	var errs []string
	errorf := func(line int, format string, args ...any) {
		errs = append(errs, fmt.Sprintf("%s(%d): error: %s", p.name, line, fmt.Sprintf(format, args...)))
	}
	m := newMacros()
	for k, v := range o.macros {
		name, _, funcLike := strings.Cut(k, "(") // -D'F(x)=x'
		m.define(name, v, funcLike)
	}
	var warns []string
	inc := &includer{p: p, paths: o.includePaths, errs: &errs, warns: &warns, m: m,
		once: map[string]bool{}, files: map[string]*string{}}
	lines := inc.preprocess(p.name, p.src, 0)
	if inc.stop {
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
	checkBraces(lines, errorf)
	kernels := findKernels(lines)
	var entries []string
	templates := map[string]bool{}
	for _, k := range kernels {
		if k.template {
			templates[k.name] = true
			continue
		}
		body := b.kernels[k.name]
		switch {
		case body == nil:
			errorf(k.line, "fake NVRTC: kernel %q has no Go body; register one with fake.Kernel", k.name)
		case body.err != nil:
			errorf(k.line, "fake NVRTC: kernel %q: %v", k.name, body.err)
		case k.params >= 0 && k.params != len(body.params):
			errorf(k.line, "fake NVRTC: kernel %q takes %d parameters but its Go body takes %d", k.name, k.params, len(body.params))
		default:
			entries = append(entries, k.name)
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
			errorf(1, "fake NVRTC: kernel %q has no Go body; register one with fake.Kernel", name)
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

func containsKernel(ks []kernelDecl, name string) bool {
	for _, k := range ks {
		if k.name == name {
			return true
		}
	}
	return false
}

// stripComments blanks // and /* */ comments, keeping newlines (and so
// line numbers) and string literals.
func stripComments(src string) string {
	out := []byte(src)
	for i := 0; i < len(out); i++ {
		switch {
		case out[i] == '"' || out[i] == '\'':
			q := out[i]
			for i++; i < len(out) && out[i] != q && out[i] != '\n'; i++ {
				if out[i] == '\\' {
					i++
				}
			}
		case out[i] == '/' && i+1 < len(out) && out[i+1] == '/':
			for ; i < len(out) && out[i] != '\n'; i++ {
				out[i] = ' '
			}
		case out[i] == '/' && i+1 < len(out) && out[i+1] == '*':
			for ; i < len(out) && !(out[i] == '*' && i+1 < len(out) && out[i+1] == '/'); i++ {
				if out[i] != '\n' {
					out[i] = ' '
				}
			}
			if i < len(out) {
				out[i], out[i+1] = ' ', ' '
				i++
			}
		}
	}
	return string(out)
}

// srcLine is one active (not #if'ed out, not a directive) source line.
type srcLine struct {
	n    int
	text string
}

// Bounds on the fake preprocessor's work for one compile, so that hostile
// input fails in bounded time: a header that includes itself, or headers
// that each include the next twice, would otherwise take exponential time.
const (
	// maxIncludeDepth is the deepest nesting of #include, as GCC's
	// default -fmax-include-depth.
	maxIncludeDepth = 200
	// maxIncludes is the most #include directives followed in one compile.
	maxIncludes = 1 << 16
	// maxPreprocessBytes is the most text (source and headers, each time
	// included) read in one compile.
	maxPreprocessBytes = 32 << 20
)

// includer resolves #include: the program's in-memory headers first,
// then the -I directories on disk. It holds what one compile's
// preprocessing shares: the macros, the #pragma once files and the
// bounds on its work.
type includer struct {
	p     *program
	paths []string
	errs  *[]string
	warns *[]string
	m     *macros

	once     map[string]bool    // files with #pragma once
	files    map[string]*string // files read from the -I directories (nil: none)
	includes int                // #include directives followed
	read     int                // bytes of text preprocessed
	stop     bool               // a catastrophic error ended the compile
}

func (in *includer) find(name string) (string, bool) {
	for i, n := range in.p.includes {
		if n == name {
			return in.p.headers[i], true
		}
	}
	if f, ok := in.files[name]; ok {
		return deref(f)
	}
	var found *string
	for _, dir := range in.paths {
		if text, ok := readSource(filepath.Join(dir, name), maxPreprocessBytes-in.read); ok {
			found = &text
			break
		}
	}
	in.files[name] = found
	return deref(found)
}

func deref(s *string) (string, bool) {
	if s == nil {
		return "", false
	}
	return *s, true
}

// readSource reads a regular file of at most limit bytes (a larger one is
// read to limit+1, for the caller to refuse); a directory, a device or a
// FIFO is not a source file.
func readSource(path string, limit int) (string, bool) {
	f, err := os.Open(path)
	if err != nil {
		return "", false
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return "", false
	}
	b, err := io.ReadAll(io.LimitReader(f, int64(max(limit, 0))+1))
	if err != nil {
		return "", false
	}
	return string(b), true
}

func (in *includer) catastrophic(name string, line int, format string, args ...any) {
	*in.errs = append(*in.errs, fmt.Sprintf("%s(%d): catastrophic error: %s", name, line, fmt.Sprintf(format, args...)))
	in.stop = true
}

// preprocess handles #include, #define, #undef, the conditional
// directives (#if and #elif evaluate C preprocessor expressions, see
// evalIf), #pragma once, #error and #warning; other directives are
// ignored. It returns the active lines of this file (not those of the
// headers it includes, whose directives it does apply). A catastrophic
// error (nesting too deep, a bound on the work exceeded) stops it.
func (in *includer) preprocess(name, src string, depth int) []srcLine {
	if in.stop {
		return nil
	}
	in.read += len(src)
	if in.read > maxPreprocessBytes {
		in.catastrophic(name, 1, "the text preprocessed exceeds the fake NVRTC's limit of %d bytes in one compile", maxPreprocessBytes)
		return nil
	}
	errorf := func(line int, format string, args ...any) {
		*in.errs = append(*in.errs, fmt.Sprintf("%s(%d): error: %s", name, line, fmt.Sprintf(format, args...)))
	}
	type frame struct{ active, taken, parent, sawElse bool }
	var stack []frame
	active := true
	var out []srcLine
	lines := strings.Split(stripComments(src), "\n")
	for i := 0; i < len(lines) && !in.stop; i++ {
		ln := i + 1
		text := lines[i]
		t := strings.TrimSpace(text)
		if !strings.HasPrefix(t, "#") {
			if active {
				out = append(out, srcLine{ln, text})
			}
			continue
		}
		if strings.HasSuffix(t, "\\") && i+1 < len(lines) {
			// Splice the continued lines into one directive.
			var sb strings.Builder
			sb.WriteString(t[:len(t)-1])
			for i+1 < len(lines) {
				i++
				next := strings.TrimRight(lines[i], " \t\r")
				if !strings.HasSuffix(next, "\\") || i+1 == len(lines) {
					sb.WriteString(next)
					break
				}
				sb.WriteString(next[:len(next)-1])
			}
			t = strings.TrimSpace(sb.String())
		}
		d := strings.TrimSpace(t[1:])
		j := 0
		for j < len(d) && isIdentByte(d[j]) {
			j++
		}
		word, rest := d[:j], strings.TrimSpace(d[j:])
		switch word {
		case "if", "ifdef", "ifndef":
			cond := false
			if active {
				switch word {
				case "ifdef", "ifndef":
					macro, ok := macroName(rest)
					if !ok {
						errorf(ln, "#%s expects a macro name", word)
					}
					_, cond = in.m.defs[macro]
					cond = cond == (word == "ifdef")
				default:
					var err error
					if cond, err = evalIf(rest, in.m); err != nil {
						errorf(ln, "%v", err)
					}
				}
			}
			stack = append(stack, frame{active: active && cond, taken: cond, parent: active})
			active = active && cond
		case "elif":
			if len(stack) == 0 {
				errorf(ln, "#elif without #if")
				continue
			}
			f := &stack[len(stack)-1]
			if f.sawElse {
				errorf(ln, "#elif after #else")
			}
			cond := false
			if f.parent && !f.taken {
				var err error
				if cond, err = evalIf(rest, in.m); err != nil {
					errorf(ln, "%v", err)
				}
			}
			f.taken = f.taken || cond
			f.active = f.parent && cond
			active = f.active
		case "else":
			if len(stack) == 0 {
				errorf(ln, "#else without #if")
				continue
			}
			f := &stack[len(stack)-1]
			if f.sawElse {
				errorf(ln, "#else after #else")
			}
			f.sawElse = true
			f.active = f.parent && !f.taken
			f.taken = true
			active = f.active
		case "endif":
			if len(stack) == 0 {
				errorf(ln, "#endif without #if")
				continue
			}
			active = stack[len(stack)-1].parent
			stack = stack[:len(stack)-1]
		case "define":
			if active {
				macro, ok := macroName(rest)
				if !ok {
					errorf(ln, "#define expects a macro name")
					continue
				}
				body := rest[len(macro):]
				funcLike := strings.HasPrefix(body, "(")
				if funcLike {
					// The parameters, up to the first ")", are not kept: the
					// fake never expands a function-like macro.
					if k := strings.IndexByte(body, ')'); k >= 0 {
						body = body[k+1:]
					} else {
						errorf(ln, "#define %s: expected a \")\" after the macro parameters", macro)
						continue
					}
				}
				in.m.define(macro, strings.TrimSpace(body), funcLike)
			}
		case "undef":
			if active {
				macro, ok := macroName(rest)
				if !ok {
					errorf(ln, "#undef expects a macro name")
					continue
				}
				in.m.undef(macro)
			}
		case "pragma":
			if active && strings.Fields(rest) != nil && strings.Fields(rest)[0] == "once" {
				in.once[name] = true
			}
		case "error":
			if active {
				errorf(ln, "#error directive: %s", rest)
			}
		case "warning":
			if active {
				*in.warns = append(*in.warns, fmt.Sprintf("%s(%d): warning #1105-D: #warning directive: %s", name, ln, rest))
			}
		case "include":
			if !active {
				continue
			}
			file := strings.Trim(rest, "\"<> \t")
			if in.once[file] {
				continue
			}
			if depth+1 > maxIncludeDepth {
				in.catastrophic(name, ln, "#include nested too deeply (more than %d levels)", maxIncludeDepth)
				continue
			}
			if in.includes++; in.includes > maxIncludes {
				in.catastrophic(name, ln, "#include %q exceeds the fake NVRTC's limit of %d #include directives in one compile", file, maxIncludes)
				continue
			}
			text, ok := in.find(file)
			if !ok && (strings.HasPrefix(rest, "<") || builtinHeader(file)) {
				continue // a system, toolkit or NVRTC built-in header the fake cannot see
			}
			if !ok {
				*in.errs = append(*in.errs, fmt.Sprintf("%s(%d): catastrophic error: cannot open source file %q", name, ln, file))
				continue
			}
			in.preprocess(file, text, depth+1)
		}
	}
	if len(stack) > 0 && !in.stop {
		errorf(len(lines), "expected an #endif")
	}
	return out
}

// macroName returns the identifier that starts s.
func macroName(s string) (string, bool) {
	if s == "" || !isIdentStart(s[0]) {
		return "", false
	}
	j := 1
	for j < len(s) && isIdentByte(s[j]) {
		j++
	}
	return s[:j], true
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// checkBraces reports unbalanced braces the way the front end does.
func checkBraces(lines []srcLine, errorf func(int, string, ...any)) {
	depth, last := 0, 1
	for _, l := range lines {
		inStr := byte(0)
		for i := 0; i < len(l.text); i++ {
			c := l.text[i]
			switch {
			case inStr != 0:
				if c == '\\' {
					i++
				} else if c == inStr {
					inStr = 0
				}
			case c == '"' || c == '\'':
				inStr = c
			case c == '{':
				depth++
			case c == '}':
				depth--
				if depth < 0 {
					errorf(l.n, "expected a declaration")
					depth = 0
				}
			}
		}
		if strings.TrimSpace(l.text) != "" {
			last = l.n
		}
	}
	if depth > 0 {
		errorf(last, "expected a \"}\"")
	}
}

type kernelDecl struct {
	name     string
	line     int
	template bool
	params   int // -1 when the parameter list could not be read
}

// findKernels finds the __global__ functions of the active source: each
// is the identifier before the first "(" after a __global__, a template
// when "template" comes between the previous ";", "{" or "}" and it. It
// takes time in proportion to the size of the source, whatever its shape.
func findKernels(lines []srcLine) []kernelDecl {
	var sb strings.Builder
	starts := make([]int, len(lines)) // offset of each line in src
	for i, l := range lines {
		starts[i] = sb.Len()
		sb.WriteString(l.text)
		sb.WriteByte('\n')
	}
	src := sb.String()
	lineAt := func(off int) int {
		return lines[sort.Search(len(starts), func(i int) bool { return starts[i] > off })-1].n
	}

	// The __global__ keywords and the first "(" after each.
	type found struct{ at, open int }
	var all []found
	for off, open := 0, -1; ; {
		i := strings.Index(src[off:], "__global__")
		if i < 0 {
			break
		}
		at := off + i
		off = at + len("__global__")
		if open < off {
			j := strings.IndexByte(src[off:], '(')
			if j < 0 {
				break
			}
			open = off + j
		}
		all = append(all, found{at, open})
	}
	if len(all) == 0 {
		return nil
	}
	closes := map[int]int{}
	for _, f := range all {
		closes[f.open] = -1
	}
	matchParens(src, all[0].open, closes)

	var out []kernelDecl
	lastDelim, delimAt := -1, 0 // the last ";{}" in src[:delimAt]
	lastTmpl, tmplAt := -1, 0   // the last "template" in src[:tmplAt]
	next := 0                   // the first of all at or after the list being read
	var ws, run, params int     // for the list at open: see below
	open := -1
	for _, f := range all {
		at, off := f.at, f.at+len("__global__")
		if f.open != open {
			// Blanks (as regexp's \s) and a word (\w) before the "(":
			// src[run:ws] and src[ws:open]. Distinct lists scan disjoint
			// text.
			open = f.open
			for ws = open; ws > 0 && strings.IndexByte(" \t\n\f\r", src[ws-1]) >= 0; ws-- {
			}
			for run = ws; run > 0 && isIdentByte(src[run-1]); run-- {
			}
			params = -1
			if close := closes[open]; close > 0 {
				for next < len(all) && all[next].at < open {
					next++
				}
				// A list with a __global__ in it is not a parameter list.
				if next == len(all) || all[next].at > close {
					params = countParams(src[open+1 : close])
				}
			}
		}
		// The name is the word before the "(" after this __global__, from
		// its first letter or _.
		p := max(run, off)
		for p < ws && isDigit(src[p]) {
			p++
		}
		if p >= ws {
			continue
		}
		for ; delimAt < at; delimAt++ {
			if c := src[delimAt]; c == ';' || c == '{' || c == '}' {
				lastDelim = delimAt
			}
		}
		for ; tmplAt+len("template") <= at; tmplAt++ {
			if strings.HasPrefix(src[tmplAt:], "template") {
				lastTmpl = tmplAt
			}
		}
		out = append(out, kernelDecl{name: src[p:ws], line: lineAt(at), template: lastTmpl > lastDelim, params: params})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].line < out[j].line })
	return out
}

// matchParens sets closes[i] to the index of the ")" that closes the "("
// at s[i], for each i of closes (from index from on; those never closed
// are left as they are).
func matchParens(s string, from int, closes map[int]int) {
	var stack []int
	for i := from; i < len(s); i++ {
		switch s[i] {
		case '(':
			stack = append(stack, i)
		case ')':
			if n := len(stack); n > 0 {
				if _, ok := closes[stack[n-1]]; ok {
					closes[stack[n-1]] = i
				}
				stack = stack[:n-1]
			}
		}
	}
}

// countParams counts the top-level comma-separated parameters of a C
// parameter list ("void" and "" are none).
func countParams(list string) int {
	t := strings.TrimSpace(list)
	if t == "" || t == "void" {
		return 0
	}
	n, depth := 1, 0
	for _, c := range t {
		switch c {
		case '(', '<', '[', '{':
			depth++
		case ')', '>', ']', '}':
			depth--
		case ',':
			if depth == 0 {
				n++
			}
		}
	}
	return n
}

// builtinHeader reports the headers NVRTC (or the CUDA toolkit it is
// usually pointed at) provides, which the fake accepts unseen.
func builtinHeader(name string) bool {
	switch name {
	case "cuda_fp16.h", "cuda_bf16.h", "cuda_fp8.h", "cuda_fp4.h", "cuda_fp6.h", "cuda_runtime.h",
		"cuda_runtime_api.h", "cuda.h", "device_launch_parameters.h", "cooperative_groups.h",
		"cstdint", "stdint.h", "cstddef", "stddef.h", "climits", "limits.h", "cmath", "math.h", "type_traits":
		return true
	}
	return strings.HasPrefix(name, "cuda/") || strings.HasPrefix(name, "cooperative_groups/")
}
