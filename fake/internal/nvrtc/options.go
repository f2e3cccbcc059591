package nvrtc

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

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
