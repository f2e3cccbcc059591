// Package symtab is the lazy symbol table of the real backends
// (internal/libcuda, internal/libnvrtc): the addresses of a library's entry
// points, each resolved on its first use and kept, with the error of one
// that cannot be.
package symtab

import (
	"errors"
	"strconv"
	"sync/atomic"

	"github.com/nocgo/cuda/loader"
)

var errNilAddress = errors.New("resolver returned a NULL address")

// Resolver finds symbol i of a Table: its address, or an error (normally a
// *loader.SymbolError) when the library does not have it.
type Resolver func(i int) (uintptr, error)

// Table holds the addresses of a fixed set of symbols, indexed by small
// integers, and resolves each one on its first use. The fast path is one
// atomic load, with no allocation. A symbol that cannot be resolved keeps
// its error, returned at each use; the other symbols are unaffected, so an
// older library without a newer entry point serves everything else.
//
// A Table is safe for concurrent use. Two goroutines may resolve the same
// symbol at once; both get the same address.
type Table struct {
	ptrs    []atomic.Uintptr
	errs    []atomic.Pointer[error]
	resolve Resolver
}

// New returns a table of n symbols resolved by resolve.
func New(n int, resolve Resolver) *Table {
	return &Table{
		ptrs:    make([]atomic.Uintptr, n),
		errs:    make([]atomic.Pointer[error], n),
		resolve: resolve,
	}
}

// Len returns the number of symbols in the table.
func (t *Table) Len() int { return len(t.ptrs) }

// Get returns the address of symbol i, resolving it on first use.
func (t *Table) Get(i int) (uintptr, error) {
	if p := t.ptrs[i].Load(); p != 0 {
		return p, nil
	}
	return t.slow(i)
}

// Resolved reports whether symbol i has been resolved successfully.
func (t *Table) Resolved(i int) bool { return t.ptrs[i].Load() != 0 }

func (t *Table) slow(i int) (uintptr, error) {
	if e := t.errs[i].Load(); e != nil {
		return 0, *e
	}
	p, err := t.resolve(i)
	if err != nil {
		t.errs[i].Store(&err)
		return 0, err
	}
	if p == 0 {
		err := error(&loader.SymbolError{Symbol: "#" + strconv.Itoa(i), Err: errNilAddress})
		t.errs[i].Store(&err)
		return 0, err
	}
	t.ptrs[i].Store(p)
	return p, nil
}

// Entry is one entry point of a library: its exported name, and the
// version of the library that introduced it (0: every version the binding
// supports), in the numbering its Needs says. internal/bindgen writes each
// binding's table of them.
type Entry struct {
	Name  string
	Since int
}

// Needs says which version of a library an entry point needs, for the
// error of a library that lacks it: the error is the *loader.SymbolError's
// Err. Nil means Since is a CUDA version (1000*major + 10*minor), set as
// the SymbolError's Since.
type Needs func(since int) error

// InLibrary returns the table of lib's entry points, entry i being the
// symbol entries[i].Name, each resolved on first use. A symbol lib lacks is
// a *loader.SymbolError naming it and, when the entry has a Since, the
// version that has it (see Needs); one that resolves to a NULL address is
// a *loader.SymbolError too. The math libraries', NCCL's and nvJitLink's
// bindings use it.
func InLibrary(lib *loader.Library, entries []Entry, needs Needs) *Table {
	return New(len(entries), func(i int) (uintptr, error) {
		e := entries[i]
		p, err := lib.Symbol(e.Name)
		if err == nil && p == 0 {
			err = &loader.SymbolError{Library: lib.Path(), Symbol: e.Name, Err: errNilAddress}
		}
		var se *loader.SymbolError
		if err != nil && e.Since > 0 && errors.As(err, &se) {
			if needs == nil {
				se.Since = e.Since
			} else {
				se.Err = needs(e.Since)
			}
		}
		return p, err
	})
}
