//go:build linux && (amd64 || arm64)

package libcurand

import (
	"math"
	"unsafe"

	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/dl"
	"github.com/nocgo/cuda/internal/symtab"
	"github.com/nocgo/cuda/loader"
)

// sym indexes the cuRAND entry points.
type sym int

const (
	symGetVersion sym = iota
	symCreateGenerator
	symDestroyGenerator
	symSetStream
	symSetSeed
	symSetOffset
	symSetOrdering
	symSetDimensions
	symGenerate
	symGenerateLongLong
	symGenerateUniform
	symGenerateUniformDouble
	symGenerateNormal
	symGenerateNormalDouble
	symGenerateLogNormal
	symGenerateLogNormalDouble
	symGeneratePoisson
	numSyms
)

var names = [numSyms]string{
	symGetVersion:              "curandGetVersion",
	symCreateGenerator:         "curandCreateGenerator",
	symDestroyGenerator:        "curandDestroyGenerator",
	symSetStream:               "curandSetStream",
	symSetSeed:                 "curandSetPseudoRandomGeneratorSeed",
	symSetOffset:               "curandSetGeneratorOffset",
	symSetOrdering:             "curandSetGeneratorOrdering",
	symSetDimensions:           "curandSetQuasiRandomGeneratorDimensions",
	symGenerate:                "curandGenerate",
	symGenerateLongLong:        "curandGenerateLongLong",
	symGenerateUniform:         "curandGenerateUniform",
	symGenerateUniformDouble:   "curandGenerateUniformDouble",
	symGenerateNormal:          "curandGenerateNormal",
	symGenerateNormalDouble:    "curandGenerateNormalDouble",
	symGenerateLogNormal:       "curandGenerateLogNormal",
	symGenerateLogNormalDouble: "curandGenerateLogNormalDouble",
	symGeneratePoisson:         "curandGeneratePoisson",
}

// Lib is the real cuRAND: libcurand through internal/dl.
type Lib struct {
	lib  *loader.Library
	syms *symtab.Table // the entry points, resolved on first use
}

var _ backend.CURAND = (*Lib)(nil)

// Open opens libcurand through package loader.
func Open() (*Lib, error) {
	lib, err := loader.Open(loader.CURAND)
	if err != nil {
		return nil, err
	}
	return &Lib{lib: lib, syms: symtab.InLibrary(lib, int(numSyms), func(i int) string { return names[i] })}, nil
}

// Path returns the path of the library opened.
func (l *Lib) Path() string { return l.lib.Path() }

// fn returns the address of entry point s, resolving it on first use.
func (l *Lib) fn(s sym) (uintptr, error) {
	return l.syms.Get(int(s))
}

// check turns a curandStatus_t (in the low 32 bits) into nil or a *RANDError.
func check(s sym, r uintptr) error {
	code := backend.RANDStatus(int32(uint32(r)))
	if code == 0 {
		return nil
	}
	return &backend.RANDError{Status: code, Op: names[s]}
}

func (l *Lib) call2(s sym, a1, a2 uintptr) error {
	p, err := l.fn(s)
	if err != nil {
		return err
	}
	return check(s, dl.Call2(p, a1, a2))
}

func (l *Lib) call3(s sym, a1, a2, a3 uintptr) error {
	p, err := l.fn(s)
	if err != nil {
		return err
	}
	return check(s, dl.Call3(p, a1, a2, a3))
}

// callFP is an entry point of (gen, ptr, n, and floating-point arguments).
func (l *Lib) callFP(s sym, g, out, n, f1, f2 uintptr) error {
	p, err := l.fn(s)
	if err != nil {
		return err
	}
	return check(s, dl.CallFP4(p, g, out, n, 0, f1, f2))
}

// Version is curandGetVersion(int*).
func (l *Lib) Version() (int, error) {
	p, err := l.fn(symGetVersion)
	if err != nil {
		return 0, err
	}
	var v int32
	r := dl.Call1(p, uintptr(unsafe.Pointer(&v)))
	return int(v), check(symGetVersion, r)
}

// CreateGenerator is curandCreateGenerator(curandGenerator_t*, curandRngType_t).
func (l *Lib) CreateGenerator(kind backend.RNGType) (uintptr, error) {
	p, err := l.fn(symCreateGenerator)
	if err != nil {
		return 0, err
	}
	var g uintptr
	r := dl.Call2(p, uintptr(unsafe.Pointer(&g)), uintptr(kind))
	if err := check(symCreateGenerator, r); err != nil {
		return 0, err
	}
	return g, nil
}

// DestroyGenerator is curandDestroyGenerator(curandGenerator_t).
func (l *Lib) DestroyGenerator(g uintptr) error {
	p, err := l.fn(symDestroyGenerator)
	if err != nil {
		return err
	}
	return check(symDestroyGenerator, dl.Call1(p, g))
}

// SetStream is curandSetStream(curandGenerator_t, cudaStream_t).
func (l *Lib) SetStream(g, s uintptr) error { return l.call2(symSetStream, g, s) }

// SetSeed is curandSetPseudoRandomGeneratorSeed(curandGenerator_t, unsigned long long).
func (l *Lib) SetSeed(g uintptr, seed uint64) error { return l.call2(symSetSeed, g, uintptr(seed)) }

// SetOffset is curandSetGeneratorOffset(curandGenerator_t, unsigned long long).
func (l *Lib) SetOffset(g uintptr, off uint64) error { return l.call2(symSetOffset, g, uintptr(off)) }

// SetOrdering is curandSetGeneratorOrdering(curandGenerator_t, curandOrdering_t).
func (l *Lib) SetOrdering(g uintptr, o backend.RANDOrdering) error {
	return l.call2(symSetOrdering, g, uintptr(o))
}

// SetDimensions is curandSetQuasiRandomGeneratorDimensions(curandGenerator_t, unsigned int).
func (l *Lib) SetDimensions(g uintptr, n uint32) error {
	return l.call2(symSetDimensions, g, uintptr(n))
}

// Generate is curandGenerate(curandGenerator_t, unsigned int*, size_t).
func (l *Lib) Generate(g, out, n uintptr) error { return l.call3(symGenerate, g, out, n) }

// GenerateLongLong is curandGenerateLongLong(curandGenerator_t, unsigned long long*, size_t).
func (l *Lib) GenerateLongLong(g, out, n uintptr) error {
	return l.call3(symGenerateLongLong, g, out, n)
}

// GenerateUniform is curandGenerateUniform(curandGenerator_t, float*, size_t).
func (l *Lib) GenerateUniform(g, out, n uintptr) error {
	return l.call3(symGenerateUniform, g, out, n)
}

// GenerateUniformDouble is curandGenerateUniformDouble(curandGenerator_t, double*, size_t).
func (l *Lib) GenerateUniformDouble(g, out, n uintptr) error {
	return l.call3(symGenerateUniformDouble, g, out, n)
}

func f32(v float32) uintptr { return uintptr(math.Float32bits(v)) }
func f64(v float64) uintptr { return uintptr(math.Float64bits(v)) }

// GenerateNormal is curandGenerateNormal(curandGenerator_t, float*, size_t, float, float).
func (l *Lib) GenerateNormal(g, out, n uintptr, mean, stddev float32) error {
	return l.callFP(symGenerateNormal, g, out, n, f32(mean), f32(stddev))
}

// GenerateNormalDouble is curandGenerateNormalDouble(curandGenerator_t, double*, size_t, double, double).
func (l *Lib) GenerateNormalDouble(g, out, n uintptr, mean, stddev float64) error {
	return l.callFP(symGenerateNormalDouble, g, out, n, f64(mean), f64(stddev))
}

// GenerateLogNormal is curandGenerateLogNormal(curandGenerator_t, float*, size_t, float, float).
func (l *Lib) GenerateLogNormal(g, out, n uintptr, mean, stddev float32) error {
	return l.callFP(symGenerateLogNormal, g, out, n, f32(mean), f32(stddev))
}

// GenerateLogNormalDouble is curandGenerateLogNormalDouble(curandGenerator_t, double*, size_t, double, double).
func (l *Lib) GenerateLogNormalDouble(g, out, n uintptr, mean, stddev float64) error {
	return l.callFP(symGenerateLogNormalDouble, g, out, n, f64(mean), f64(stddev))
}

// GeneratePoisson is curandGeneratePoisson(curandGenerator_t, unsigned int*, size_t, double).
func (l *Lib) GeneratePoisson(g, out, n uintptr, lambda float64) error {
	return l.callFP(symGeneratePoisson, g, out, n, f64(lambda), 0)
}
