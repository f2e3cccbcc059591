// Command bindgen writes a library binding's symbol table and call
// wrappers from a declaration table: one line per entry point, the C
// signature as in the library's header. Each binding of NVIDIA's other
// libraries (internal/libcublas, libcufft, libcurand, libnccl,
// libnvjitlink) runs it with its own table; libcuda's and libnvrtc's,
// which feed package abi and the fake as well, have their own generator
// (internal/libcuda/internal/gen), which shares the C parameters, the Go
// signatures and the comments with this one (package cdecl).
//
// # Running it
//
// A binding needs a table file and one go:generate line in the package:
//
//	//go:generate go run github.com/nocgo/cuda/internal/bindgen -iface CUFFT -type Lib
//
// go generate ./internal/libcufft then writes zz_generated.go there; commit
// it (CI runs every generator and fails on a diff; this package's test
// fails when a checked-in output differs from what its go:generate line
// would write). Flags:
//
//	-table F    the table (default entrypoints.txt)
//	-o F        the output (default zz_generated.go)
//	-iface I    the Go interface the methods implement: their Go
//	            signatures are read from it (required)
//	-api DIR    the directory of the package that declares I (default
//	            ../../driver/backend; the package's own directory for one it
//	            declares itself)
//	-type T     the receiver type of the methods (default Lib)
//	-sym S      the entry-point index type (default sym): its constants are
//	            S's name with the C name's rest after -prefix (symCreate), then
//	            numSyms; the table is <S>Entries ([numSyms]symtab.Entry)
//	-prefix P   the C names' common prefix, left out of the constants (cufft)
//	-abi        the names are package abi's constants (abi.NcclGetVersion),
//	            for a library the fake implements under the same names
//	-open F:K   also write the receiver type (the library and its
//	            symtab.Table), F() (*T, error), which opens loader.K, and
//	            T's Path and fn (see below)
//	-needs N    with -open: the symtab.Needs that words a missing entry
//	            point's version (default nil: since is a CUDA version)
//
// # The table
//
// Blank lines and lines starting with # are comments. Every other line is
//
//	Method cName(param, ...) option... [// note]
//
// Method is a method of the interface, or - for an entry point with no
// method of its own (called from hand-written code). cName is the exported
// symbol, versioned as the library exports it (cublasCreate_v2). Each param
// is "C-type name" as in the header; "out C-type* name" is an
// out-parameter and becomes the method's next result; "C-type name=0"
// passes a constant and takes no Go argument. The other params take the
// method's Go parameters in order:
//
//	Go uintptr            any handle, pointer or size_t: passed as is
//	Go int                a C int (checked to fit, else l.tooBig(s)), or
//	                      a size_t (checked not negative)
//	Go int64, uint64, uint32, int32, uint16, uint8, or a named integer type
//	                      (an enum: backend.FFTDirection): uintptr(x)
//	Go bool               a C int, 0 or 1
//	Go float32, float64   a C float or double, in a floating-point register
//	                      (dl.CallFP4: at most 4 integer and 2 such)
//	Go []T                two C params: a pointer to the first element
//	                      (nil for none) and its size_t or int count
//	Go *T                 a pointer to the struct T laid out as the C one
//
// and the results, in order of the out-parameters:
//
//	Go int                from a C int* or unsigned int*
//	Go uintptr            from a handle*, pointer* or size_t*, or an int*
//	                      (a handle that is a C int, such as cufftHandle)
//	Go bool               from an int*: != 0
//	Go string             from "out char* name" followed by its size as a
//	                      constant ("unsigned int length=96"): a buffer of
//	                      that size, read up to its NUL
//	Go uint64, uint32, int64 and named types
//	                      from a pointer to the same-sized C type (a named
//	                      struct type: laid out as the C one)
//
// A method returns its zero results and the error when the call fails.
// Options:
//
//	since=N   the library version that introduced the entry point, in the
//	          numbering the binding's symtab.Needs reads (CUDA's
//	          1000*major+10*minor when it passes nil); 0 or absent: every
//	          version the binding supports. A library that lacks it gives a
//	          *loader.SymbolError that names the entry point and N.
//	hand      the method is written by hand (strings, callbacks, options,
//	          checks of its own): only the entry point's index is generated.
//	errctx=P  the failure is checked with l.checkIn(s, res, P), P a Go
//	          parameter (NCCL's communicator, for its last-error text),
//	          rather than l.check(s, res).
//
// A line "family Name cName..." lists one routine's entry points by
// precision (cuBLAS's S, D, C, Z): each name gets an index of its own, and
// the output a family type, the constant fam<Name> and familySyms[fam<Name>].
//
// # What the binding writes by hand
//
// The generated methods call four functions of the receiver that the
// binding declares (each a line or two; -open writes the first):
// l.fn(s) (s's address, from its symtab.Table), l.check(s, res) (the library's status in the low 32 bits
// of res, as its error naming s), and, where used, l.checkIn(s, res, P) and
// l.tooBig(s) (a Go int that does not fit a C int). Every call goes through
// the fixed-arity trampolines of internal/dl (dl.CallN, dl.CallFP4) with its
// arguments computed before the call statement, and allocates nothing.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
)

// config is one binding's generator settings, from its go:generate line.
type config struct {
	table, output    string
	iface, api, recv string
	sym, prefix      string
	open, needs      string // -open Func:Kind, -needs
	abi              bool
	pkg              string // the Go package written ($GOPACKAGE)
	dir              string // the package's directory (go generate's working directory)
}

func parseFlags(args []string) (*config, error) {
	c := &config{}
	fs := flag.NewFlagSet("bindgen", flag.ContinueOnError)
	fs.StringVar(&c.table, "table", "entrypoints.txt", "the declaration table")
	fs.StringVar(&c.output, "o", "zz_generated.go", "the output file")
	fs.StringVar(&c.iface, "iface", "", "the interface the methods implement")
	fs.StringVar(&c.api, "api", "../../driver/backend", "the directory of the package declaring -iface")
	fs.StringVar(&c.recv, "type", "Lib", "the receiver type")
	fs.StringVar(&c.sym, "sym", "sym", "the entry-point index type")
	fs.StringVar(&c.prefix, "prefix", "", "the C names' prefix left out of the constants")
	fs.BoolVar(&c.abi, "abi", false, "the names are package abi's constants")
	fs.StringVar(&c.open, "open", "", "Func:Kind: write the receiver type and Func, which opens loader.Kind")
	fs.StringVar(&c.needs, "needs", "nil", "with -open: the symtab.Needs of the library's versions")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if c.iface == "" {
		return nil, fmt.Errorf("-iface is required")
	}
	if fs.NArg() != 0 {
		return nil, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	return c, nil
}

func main() {
	c, err := parseFlags(os.Args[1:])
	if err == nil {
		c.pkg, c.dir = os.Getenv("GOPACKAGE"), "."
		if c.pkg == "" {
			err = fmt.Errorf("run it through go generate ($GOPACKAGE is not set)")
		}
	}
	if err == nil {
		var src []byte
		if src, err = generateFile(c); err == nil {
			out := c.output
			if !filepath.IsAbs(out) {
				out = filepath.Join(c.dir, out)
			}
			err = os.WriteFile(out, src, 0o644)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bindgen:", err)
		os.Exit(1)
	}
}

// generateFile reads c's table and interface and returns the output.
func generateFile(c *config) ([]byte, error) {
	tsrc, err := os.ReadFile(filepath.Join(c.dir, c.table))
	if err != nil {
		return nil, err
	}
	t, err := parseTable(c.table, tsrc)
	if err != nil {
		return nil, err
	}
	api := filepath.Join(c.dir, c.api)
	methods, qual, err := readInterface(api, c.iface, c.pkg)
	if err != nil {
		return nil, err
	}
	return generate(c, t, methods, qual)
}
