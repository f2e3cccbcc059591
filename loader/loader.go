// Package loader finds and opens the CUDA driver (libcuda) and the run-time
// compiler (libnvrtc) when the program runs, with no cgo and no CUDA toolkit
// at build time, and resolves their symbols.
//
// Search order for each library (Candidates lists it):
//
//  1. The path in NOCGO_CUDA_LIBCUDA or NOCGO_CUDA_LIBNVRTC. When the
//     variable is set, it is the only candidate.
//  2. Versioned names through the system loader (ld.so.cache,
//     LD_LIBRARY_PATH): libcuda.so.1 before libcuda.so; libnvrtc.so.13, .12,
//     .11.2, then libnvrtc.so.
//  3. The same names in $CUDA_HOME/lib64, $CUDA_PATH/lib64,
//     /usr/local/cuda/lib64, and the NVIDIA pip wheels' directories
//     (site-packages/nvidia/cu13/lib, nvidia/cuda_nvrtc/lib, ...) of the
//     Python environments found cheaply from the environment and the
//     python3 on PATH (Python is never run).
//
// libnccl (kind NCCL, opened by package nccl on first use) is searched the
// same way: NOCGO_CUDA_LIBNCCL, libnccl.so.2 and libnccl.so through the
// system loader, the CUDA directories, and the nvidia/nccl/lib directory of
// the NCCL pip wheel (nvidia-nccl-cu12, -cu13). libcurand (kind CURAND:
// NOCGO_CUDA_LIBCURAND, libcurand.so.10) and libcufft (kind CUFFT:
// NOCGO_CUDA_LIBCUFFT, libcufft.so.12, .11) likewise, with the wheels'
// nvidia/cu13/lib, nvidia/curand/lib and nvidia/cufft/lib directories.
//
// libcublas and libcublasLt (kinds CUBLAS and CUBLASLt, opened by package
// cublas on first use) likewise: NOCGO_CUDA_LIBCUBLAS and
// NOCGO_CUDA_LIBCUBLASLT, the .so.13, .so.12 and .so.11 names through the
// system loader, the CUDA directories, and the nvidia/cu13/lib and
// nvidia/cublas/lib directories of the cuBLAS pip wheels.
//
// libnvJitLink (kind NVJITLINK, opened by the real backend on the first
// link-time-optimised link) likewise: NOCGO_CUDA_LIBNVJITLINK, the .so.13
// and .so.12 names through the system loader, the CUDA directories, and the
// nvidia/cu13/lib and nvidia/nvjitlink/lib directories of its pip wheels.
//
// libnvidia-ml, NVML (kind NVML, opened by package nvml on first use), is
// part of the driver and is searched as libcuda is: NOCGO_CUDA_LIBNVML,
// libnvidia-ml.so.1 and libnvidia-ml.so through the system loader, the CUDA
// directories and WSL 2's /usr/lib/wsl/lib.
//
// Before a file is handed to the system loader, it is checked: a path that
// is not a regular file (a named pipe would block dlopen forever), not an
// ELF shared library of this program's class and machine, or whose loadable
// segments run past the end of the file (a truncated copy, which dlopen maps
// and the process then dies of SIGBUS touching) is refused with ErrBadFile
// and the reason. For a bare name the system loader searches, the file it
// would find through LD_LIBRARY_PATH is checked the same way.
//
// A library that cannot be found is a *LibraryError listing every candidate
// and why it failed; a missing symbol is a *SymbolError. Libraries stay
// loaded for the life of the process.
package loader

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/nocgo/cuda/internal/dl"
)

// Kind names one of the libraries the loader can open.
type Kind int

const (
	// CUDA is the CUDA driver, libcuda.
	CUDA Kind = iota + 1
	// NVRTC is the CUDA run-time compiler, libnvrtc.
	NVRTC
	// NCCL is NVIDIA's collective communication library, libnccl.
	NCCL
	// CURAND is NVIDIA's random number generation library, libcurand.
	CURAND
	// CUFFT is NVIDIA's fast Fourier transform library, libcufft.
	CUFFT
	// CUBLAS is NVIDIA's dense linear algebra library, libcublas.
	CUBLAS
	// CUBLASLt is cuBLAS's lightweight matrix-multiply library, libcublasLt.
	CUBLASLt
	// NVJITLINK is NVIDIA's JIT linker, libnvJitLink (link-time
	// optimisation of LTO-IR, which the driver's cuLink no longer does).
	NVJITLINK
	// NVML is the NVIDIA Management Library, libnvidia-ml (part of the
	// driver).
	NVML
)

// String returns the library's base name, "libcuda" or "libnvrtc".
func (k Kind) String() string {
	switch k {
	case CUDA:
		return "libcuda"
	case NVRTC:
		return "libnvrtc"
	case NCCL:
		return "libnccl"
	case CURAND:
		return "libcurand"
	case CUFFT:
		return "libcufft"
	case CUBLAS:
		return "libcublas"
	case CUBLASLt:
		return "libcublasLt"
	case NVJITLINK:
		return "libnvJitLink"
	case NVML:
		return "libnvidia-ml"
	}
	return fmt.Sprintf("loader.Kind(%d)", int(k))
}

// EnvVar returns the environment variable that names the library's path
// explicitly: NOCGO_CUDA_LIBCUDA or NOCGO_CUDA_LIBNVRTC.
func (k Kind) EnvVar() string {
	switch k {
	case CUDA:
		return "NOCGO_CUDA_LIBCUDA"
	case NVRTC:
		return "NOCGO_CUDA_LIBNVRTC"
	case NCCL:
		return "NOCGO_CUDA_LIBNCCL"
	case CURAND:
		return "NOCGO_CUDA_LIBCURAND"
	case CUFFT:
		return "NOCGO_CUDA_LIBCUFFT"
	case CUBLAS:
		return "NOCGO_CUDA_LIBCUBLAS"
	case CUBLASLt:
		return "NOCGO_CUDA_LIBCUBLASLT"
	case NVJITLINK:
		return "NOCGO_CUDA_LIBNVJITLINK"
	case NVML:
		return "NOCGO_CUDA_LIBNVML"
	}
	return ""
}

// ErrUnknownKind is returned by Open and Candidates for a Kind other than
// CUDA and NVRTC.
var ErrUnknownKind = errors.New("loader: unknown library kind")

// Library is an opened shared library. It is never closed: the library
// stays loaded for the life of the process. It is safe for concurrent use.
type Library struct {
	kind   Kind
	name   string
	path   string
	handle uintptr
}

// Open finds and opens the library of kind k, trying each of Candidates(k)
// in order and returning the first that loads. When none does, the error is
// a *LibraryError listing every candidate and why it failed.
func Open(k Kind) (*Library, error) {
	cands := Candidates(k)
	if cands == nil {
		return nil, fmt.Errorf("%w: %d", ErrUnknownKind, int(k))
	}
	lerr := &LibraryError{Kind: k, Env: os.Getenv(k.EnvVar()) != ""}
	for _, c := range cands {
		lib, err := openOne(k, c)
		if err == nil {
			return lib, nil
		}
		lerr.Tried = append(lerr.Tried, Attempt{Path: c, Err: err})
	}
	return nil, lerr
}

// dlOpen is dl.Open; Locate's tests replace it to show that Locate loads
// nothing.
var dlOpen = dl.Open

// openOne opens one candidate. A path (a name with a slash, which dlopen
// does not search for) is checked first (see checkFile): one that does not
// exist fails with the file system's error, and one that is not a complete
// shared library for this machine with an ErrBadFile, without a dlopen. For
// a bare name, the file LD_LIBRARY_PATH leads to is checked (see
// checkSoname).
func openOne(k Kind, c string) (*Library, error) {
	var err error
	if strings.Contains(c, "/") {
		err = checkFile(c)
	} else if dl.Supported {
		err = checkSoname(c)
	}
	if err != nil {
		return nil, err
	}
	h, err := dlOpen(c)
	if err != nil {
		return nil, err
	}
	path, ok := dl.Path(h)
	if !ok {
		path = c
	}
	return &Library{kind: k, name: c, path: path, handle: h}, nil
}

// Kind returns which library this is.
func (l *Library) Kind() Kind { return l.kind }

// Name returns the candidate that opened it, as Candidates listed it (a bare
// name such as "libcuda.so.1", or a path).
func (l *Library) Name() string { return l.name }

// Path returns the file the system loader opened (an absolute path when the
// loader reports it; the candidate's name otherwise).
func (l *Library) Path() string { return l.path }

// Handle returns the dlopen handle.
func (l *Library) Handle() uintptr { return l.handle }

// Symbol looks up name in the library (dlsym) and returns its address. A
// missing symbol is a *SymbolError. It does not cache: see Table for lazy,
// cached resolution.
func (l *Library) Symbol(name string) (uintptr, error) {
	p, err := dl.Sym(l.handle, name)
	if err != nil {
		return 0, &SymbolError{Library: l.path, Symbol: name, Err: err}
	}
	return p, nil
}
