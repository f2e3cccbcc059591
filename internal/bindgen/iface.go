package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/nocgo/cuda/internal/bindgen/cdecl"
)

// goParam and goSig are an interface method's parameter and signature.
type (
	goParam = cdecl.GoParam
	goSig   = cdecl.GoSig
)

// qualifier is how the generated file names the interface's package: its
// import path and name, or "" for the package itself.
type qualifier struct{ path, name string }

// readInterface reads the methods of interface iface from the package in
// dir (its Go files but the tests), with those of the interfaces it embeds
// from the same package. pkg is the package written: a dir of another
// package qualifies its exported types.
func readInterface(dir, iface, pkg string) (map[string]*goSig, qualifier, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, qualifier{}, err
	}
	sort.Strings(names)
	fset := token.NewFileSet()
	ifaces := map[string]*ast.InterfaceType{}
	var q qualifier
	for _, n := range names {
		if strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, n, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, q, err
		}
		q.name = f.Name.Name
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.TYPE {
				continue
			}
			for _, spec := range gd.Specs {
				ts := spec.(*ast.TypeSpec)
				if it, ok := ts.Type.(*ast.InterfaceType); ok {
					ifaces[ts.Name.Name] = it
				}
			}
		}
	}
	if q.name == "" {
		return nil, q, fmt.Errorf("%s: no Go files", dir)
	}
	if q.name == pkg {
		q = qualifier{}
	} else if q.path, err = importPath(dir); err != nil {
		return nil, q, err
	}
	methods := map[string]*goSig{}
	var collect func(name string, depth int) error
	collect = func(name string, depth int) error {
		it, ok := ifaces[name]
		if !ok {
			return fmt.Errorf("%s: no interface %s", dir, name)
		}
		for _, m := range it.Methods.List {
			ft, ok := m.Type.(*ast.FuncType)
			if !ok {
				if id, ok := m.Type.(*ast.Ident); ok && depth < 8 {
					if err := collect(id.Name, depth+1); err != nil {
						return err
					}
				}
				continue
			}
			sig, err := cdecl.Signature(ft, q.name)
			for _, n := range m.Names {
				if err != nil {
					methods[n.Name] = nil // the table cannot name it
				} else {
					methods[n.Name] = sig
				}
			}
		}
		return nil
	}
	return methods, q, collect(iface, 0)
}

// importPath returns the import path of the package in dir, from the
// go.mod above it.
func importPath(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for d := abs; ; d = filepath.Dir(d) {
		src, err := os.ReadFile(filepath.Join(d, "go.mod"))
		if err == nil {
			for _, line := range strings.Split(string(src), "\n") {
				if mod, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
					rel, err := filepath.Rel(d, abs)
					if err != nil {
						return "", err
					}
					return strings.TrimSpace(mod) + "/" + filepath.ToSlash(rel), nil
				}
			}
			return "", fmt.Errorf("%s: no module line", filepath.Join(d, "go.mod"))
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("%s: no go.mod above it", dir)
		}
	}
}
