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

// InLibrary returns the table of n entry points of lib, entry i being the
// symbol name(i), each resolved on first use; a symbol that resolves to a
// NULL address is a *loader.SymbolError naming it. The math libraries'
// and NCCL's bindings use it.
func InLibrary(lib *loader.Library, n int, name func(i int) string) *Table {
	return New(n, func(i int) (uintptr, error) {
		p, err := lib.Symbol(name(i))
		if err == nil && p == 0 {
			err = &loader.SymbolError{Library: lib.Path(), Symbol: name(i), Err: errNilAddress}
		}
		return p, err
	})
}
