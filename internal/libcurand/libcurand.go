//go:build linux && (amd64 || arm64)

package libcurand

import (
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/symtab"
	"github.com/nocgo/cuda/loader"
)

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
	return &Lib{lib: lib, syms: symtab.InLibrary(lib, symEntries[:], nil)}, nil
}

// Path returns the path of the library opened.
func (l *Lib) Path() string { return l.lib.Path() }

// fn returns the address of entry point s, resolving it on first use.
func (l *Lib) fn(s sym) (uintptr, error) {
	return l.syms.Get(int(s))
}

// check turns a curandStatus_t (in the low 32 bits) from s into nil or a
// *RANDError.
func (l *Lib) check(s sym, r uintptr) error {
	code := backend.RANDStatus(int32(uint32(r)))
	if code == 0 {
		return nil
	}
	return &backend.RANDError{Status: code, Op: symEntries[s].Name}
}
