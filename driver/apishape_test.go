package driver_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// plumbing names the import names of the seam and of the internal
// packages: none may appear in the exported API of a user package.
var plumbing = map[string]bool{"backend": true, "core": true, "libcuda": true, "libnccl": true, "dl": true}

// seamNames are the exported names allowed to name a seam type: the seam's
// entry (driver.New, as database/sql.OpenDB takes a driver.Connector) and
// the aliases that give users the seam's types under their own names.
var seamNames = map[string]bool{
	"driver.New":               true,
	"driver.DeviceAttribute":   true,
	"driver.IPCHandle":         true,
	"driver.Result":            true,
	"loader.SymbolError":       true,
	"module.FunctionAttribute": true,
	"nccl.Error":               true,
	"nccl.Result":              true,
}

// TestNoPlumbingInTheUserAPI: no exported function, method, field or type
// of a user package names a type of driver/backend or of an internal
// package, except the seam's entry and the documented aliases; so users
// never import driver/backend.
func TestNoPlumbingInTheUserAPI(t *testing.T) {
	var found []string
	for _, pkg := range []string{"driver", "stream", "memory", "module", "graph", "nccl", "loader"} {
		for _, f := range parseDir(t, filepath.Join("..", pkg)) {
			for _, name := range plumbingIn(pkg, f) {
				if !seamNames[name] {
					found = append(found, name)
				}
			}
		}
	}
	sort.Strings(found)
	if len(found) > 0 {
		t.Errorf("the exported API names seam or internal types: %s", strings.Join(found, ", "))
	}
}

func parseDir(t *testing.T, dir string) []*ast.File {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	fset := token.NewFileSet()
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, e.Name()), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	return files
}

// namesPlumbing reports whether the type expression x names a type of a
// plumbing package.
func namesPlumbing(x ast.Node) bool {
	found := false
	ast.Inspect(x, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok && plumbing[id.Name] {
				found = true
			}
		}
		return !found
	})
	return found
}

// exportedFields reports whether a struct or interface type names plumbing
// in its exported fields or methods.
func exportedFields(x ast.Expr) bool {
	var list *ast.FieldList
	switch t := x.(type) {
	case *ast.StructType:
		list = t.Fields
	case *ast.InterfaceType:
		list = t.Methods
	default:
		return namesPlumbing(x)
	}
	for _, fld := range list.List {
		exported := len(fld.Names) == 0 // embedded: exported when its type is
		for _, n := range fld.Names {
			exported = exported || n.IsExported()
		}
		if len(fld.Names) == 0 {
			if id, ok := fld.Type.(*ast.Ident); ok && !id.IsExported() {
				exported = false
			}
		}
		if exported && namesPlumbing(fld.Type) {
			return true
		}
	}
	return false
}

// plumbingIn lists pkg.Name (or pkg.Type.Method) for each exported
// declaration of f whose type or signature names plumbing.
func plumbingIn(pkg string, f *ast.File) []string {
	var out []string
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if !d.Name.IsExported() {
				continue
			}
			name := pkg + "." + d.Name.Name
			if d.Recv != nil {
				recv := receiverName(d.Recv.List[0].Type)
				if !ast.IsExported(recv) {
					continue
				}
				name = pkg + "." + recv + "." + d.Name.Name
			}
			if namesPlumbing(d.Type) {
				out = append(out, name)
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					if s.Name.IsExported() && exportedFields(s.Type) {
						out = append(out, pkg+"."+s.Name.Name)
					}
				case *ast.ValueSpec:
					for _, n := range s.Names {
						if n.IsExported() && s.Type != nil && namesPlumbing(s.Type) {
							out = append(out, pkg+"."+n.Name)
						}
					}
				}
			}
		}
	}
	return out
}

func receiverName(x ast.Expr) string {
	switch t := x.(type) {
	case *ast.StarExpr:
		return receiverName(t.X)
	case *ast.IndexExpr:
		return receiverName(t.X)
	case *ast.IndexListExpr:
		return receiverName(t.X)
	case *ast.Ident:
		return t.Name
	}
	return ""
}
