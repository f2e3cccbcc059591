// Package zerotest holds one test helper, for the library's own tests: it
// walks every exported method of the exported types of a package, on nil
// pointers and zero values with zero arguments, and fails the test on any
// panic, runtime.Goexit or hang, and on an error-returning call that says
// nothing is wrong. It is how the rule "zero and nil values never panic;
// every call on them returns an error" (see the package docs of driver,
// stream, memory, module, graph and nccl) is kept for every method,
// including those added later: Covers fails when an exported type of the
// package is missing from the list walked.
package zerotest

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// Options tune Methods.
type Options struct {
	// NilOK lists methods ("Type.Method", the type named without its
	// package or type arguments) whose error result may be nil on a nil or
	// zero receiver: a nil error there is a documented answer (Unwrap of an
	// error type, for one), not a call that went through.
	NilOK []string
}

// Methods calls, for each value (a typed nil pointer such as
// (*stream.Stream)(nil), or a value of a non-pointer type), every exported
// method of its type: on the nil pointer and on a pointer to a zero value
// for pointer types, on the zero value otherwise. Every argument is the zero
// value of its type (variadic parameters get none). A call must return (in
// a few seconds), without a panic or runtime.Goexit, and a method whose last
// result is an error must return a non-nil one (the receiver is not usable)
// unless opts.NilOK names it. Methods with value receivers are not called
// on the nil pointer: dereferencing it is Go's doing, as for any value type.
func Methods(t *testing.T, opts Options, values ...any) {
	t.Helper()
	for _, v := range values {
		typ := reflect.TypeOf(v)
		if typ == nil {
			t.Errorf("zerotest.Methods: an untyped nil: give a typed nil pointer")
			continue
		}
		var receivers []reflect.Value
		var names []string
		if typ.Kind() == reflect.Pointer {
			receivers = append(receivers, reflect.Zero(typ), reflect.New(typ.Elem()))
			names = append(names, "nil "+typ.String(), "zero "+typ.Elem().String())
		} else {
			receivers = append(receivers, reflect.Zero(typ))
			names = append(names, "zero "+typ.String())
		}
		for i, recv := range receivers {
			for m := range typ.NumMethod() {
				method := typ.Method(m)
				if !method.IsExported() {
					continue
				}
				if i == 0 && typ.Kind() == reflect.Pointer {
					if _, byValue := typ.Elem().MethodByName(method.Name); byValue {
						// A method of the value, called through a nil
						// pointer: Go's own dereference, not the library's.
						continue
					}
				}
				call(t, opts, names[i], baseName(typ), method.Name, recv.Method(m))
			}
		}
	}
}

// baseName is the type's name without package, pointer or type arguments.
func baseName(typ reflect.Type) string {
	for typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	name := typ.Name()
	if i := strings.IndexByte(name, '['); i >= 0 {
		name = name[:i]
	}
	return name
}

var errorType = reflect.TypeFor[error]()

// call calls fn with zero arguments and checks how it ended.
func call(t *testing.T, opts Options, recvName, typeName, methodName string, fn reflect.Value) {
	t.Helper()
	ft := fn.Type()
	n := ft.NumIn()
	if ft.IsVariadic() {
		n--
	}
	args := make([]reflect.Value, n)
	for i := range args {
		args[i] = reflect.Zero(ft.In(i))
	}
	type result struct {
		out      []reflect.Value
		panicked any
		returned bool
	}
	done := make(chan result, 1)
	go func() {
		var r result
		defer func() {
			if !r.returned {
				r.panicked = recover()
			}
			done <- r
		}()
		r.out = fn.Call(args)
		r.returned = true
	}()
	what := fmt.Sprintf("%s.%s on a %s", typeName, methodName, recvName)
	select {
	case r := <-done:
		switch {
		case !r.returned && r.panicked != nil:
			t.Errorf("%s panicked: %v", what, r.panicked)
		case !r.returned:
			t.Errorf("%s called runtime.Goexit (or panicked with nil)", what)
		case ft.NumOut() > 0 && ft.Out(ft.NumOut()-1) == errorType:
			if err := r.out[len(r.out)-1]; err.IsNil() && !slices.Contains(opts.NilOK, typeName+"."+methodName) {
				t.Errorf("%s returned a nil error: a nil or zero receiver must be refused", what)
			}
		}
	case <-time.After(5 * time.Second):
		t.Errorf("%s did not return within 5s", what)
	}
}

// Covers fails t unless every exported type declared in the package in dir
// (its non-test Go files), other than interfaces and function types, is
// among the values (compared by name, type arguments dropped).
func Covers(t *testing.T, dir string, values ...any) {
	t.Helper()
	listed := map[string]bool{}
	for _, v := range values {
		if typ := reflect.TypeOf(v); typ != nil {
			listed[baseName(typ)] = true
		}
	}
	for _, name := range exportedTypes(t, dir) {
		if !listed[name] {
			t.Errorf("exported type %s of %s is not walked by the zero-value test: add it", name, dir)
		}
	}
}

// exportedTypes returns the exported, non-interface, non-function types
// declared in the non-test Go files of dir.
func exportedTypes(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var names []string
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		file, err := parser.ParseFile(fset, f, src, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		if !buildable(file) {
			continue
		}
		for _, d := range file.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.TYPE {
				continue
			}
			for _, s := range g.Specs {
				ts := s.(*ast.TypeSpec)
				if !ts.Name.IsExported() || ts.Assign.IsValid() {
					continue
				}
				switch ts.Type.(type) {
				case *ast.InterfaceType, *ast.FuncType:
					continue
				}
				names = append(names, ts.Name.Name)
			}
		}
	}
	return names
}

// buildable reports whether file has no build constraint that excludes the
// usual builds (files such as "//go:build ignore").
func buildable(file *ast.File) bool {
	for _, cg := range file.Comments {
		if cg.Pos() > file.Package {
			break
		}
		for _, c := range cg.List {
			if strings.HasPrefix(c.Text, "//go:build ignore") {
				return false
			}
		}
	}
	return true
}
