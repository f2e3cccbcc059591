// Package cdecl is what the binding generators (internal/bindgen, and
// libcuda's internal/libcuda/internal/gen) share: the parameters of the C
// signatures their tables declare, the Go signatures of the interface
// methods they implement, and the comments of the code they write.
package cdecl

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strings"
)

// Param is one C parameter of a table's entry point.
type Param struct {
	CType string // normalized: "unsigned int", "CUcontext*", "const void*"
	Name  string
	Out   bool   // an out-parameter: a result of the Go method
	Const string // a constant passed in its place ("0"), taking no Go argument
}

// ParseParam parses "[out] C-type name[=const]"; a name[] is a pointer.
func ParseParam(s string) (Param, error) {
	f := strings.Fields(s)
	var p Param
	if len(f) > 0 && f[0] == "out" {
		p.Out = true
		f = f[1:]
	}
	if len(f) < 2 {
		return p, fmt.Errorf("parameter %q: want C-type name", strings.TrimSpace(s))
	}
	name := f[len(f)-1]
	typ := strings.Join(f[:len(f)-1], " ")
	for strings.HasPrefix(name, "*") {
		name, typ = name[1:], typ+"*"
	}
	if n, ok := strings.CutSuffix(name, "[]"); ok { // an array parameter is a pointer
		name, typ = n, typ+"*"
	}
	typ = strings.ReplaceAll(typ, " *", "*")
	if n, k, ok := strings.Cut(name, "="); ok {
		name, p.Const = n, k
		if p.Out {
			return p, fmt.Errorf("parameter %s: an out-parameter cannot be a constant", name)
		}
	}
	if !token.IsIdentifier(name) && !token.IsKeyword(name) {
		return p, fmt.Errorf("parameter name %q", name)
	}
	if p.Out && !strings.HasSuffix(typ, "*") {
		return p, fmt.Errorf("out-parameter %s: type %s is no pointer", name, typ)
	}
	p.CType, p.Name = typ, name
	return p, nil
}

// GoParam is one parameter of an interface method.
type GoParam struct{ Name, Type string }

// GoSig is the Go signature of an interface method whose last result is an
// error: its parameters and its other results, the types as the generated
// file spells them ("backend.FFTDirection", "[]uintptr").
type GoSig struct {
	Params  []GoParam
	Results []string
}

// Signature returns the signature of an interface method of package pkg
// ("" for the generated file's own package).
func Signature(ft *ast.FuncType, pkg string) (*GoSig, error) {
	sig := &GoSig{}
	for _, p := range ft.Params.List {
		if len(p.Names) == 0 {
			return nil, fmt.Errorf("has an unnamed parameter")
		}
		for _, n := range p.Names {
			sig.Params = append(sig.Params, GoParam{n.Name, Qualify(p.Type, pkg)})
		}
	}
	if ft.Results != nil {
		for _, r := range ft.Results.List {
			for range max(1, len(r.Names)) {
				sig.Results = append(sig.Results, Qualify(r.Type, pkg))
			}
		}
	}
	if len(sig.Results) == 0 || sig.Results[len(sig.Results)-1] != "error" {
		return nil, fmt.Errorf("does not return an error last")
	}
	sig.Results = sig.Results[:len(sig.Results)-1]
	return sig, nil
}

// Qualify writes a type of package pkg as the generated file spells it.
func Qualify(e ast.Expr, pkg string) string {
	switch t := e.(type) {
	case *ast.Ident:
		if pkg != "" && token.IsExported(t.Name) {
			return pkg + "." + t.Name
		}
		return t.Name
	case *ast.ArrayType:
		if t.Len == nil {
			return "[]" + Qualify(t.Elt, pkg)
		}
		return "[" + types.ExprString(t.Len) + "]" + Qualify(t.Elt, pkg)
	case *ast.StarExpr:
		return "*" + Qualify(t.X, pkg)
	}
	return types.ExprString(e) // unsafe.Pointer, func(), ...
}

// Comment wraps text as a Go comment of lines up to about 77 columns.
func Comment(text string) string {
	var b strings.Builder
	line := "//"
	for _, word := range strings.Fields(text) {
		if len(line)+1+len(word) > 77 && line != "//" {
			b.WriteString(line + "\n")
			line = "//"
		}
		line += " " + word
	}
	b.WriteString(line + "\n")
	return b.String()
}

// Line is one entry point's line of a table: "Method cName(param, ...)
// option... [// note]".
type Line struct {
	Method  string // the Go method; "" for "-"
	CName   string
	Params  []Param
	Options []string // "name" or "name=value"
	Note    string
}

// ParseLine splits a table line and parses its parameters ("void" or
// nothing between the parentheses is none). The generators check the names
// and options.
func ParseLine(line string) (*Line, error) {
	l := &Line{}
	if i := strings.Index(line, "//"); i >= 0 {
		l.Note = strings.TrimSpace(line[i+2:])
		line = strings.TrimSpace(line[:i])
	}
	open, close := strings.IndexByte(line, '('), strings.LastIndexByte(line, ')')
	if open < 0 || close < open {
		return nil, fmt.Errorf("want Method cName(params) options: %q", line)
	}
	head := strings.Fields(line[:open])
	if len(head) != 2 {
		return nil, fmt.Errorf("want Method cName before '(': %q", line[:open])
	}
	if head[0] != "-" {
		if !token.IsIdentifier(head[0]) || !token.IsExported(head[0]) {
			return nil, fmt.Errorf("method %q is no exported Go name", head[0])
		}
		l.Method = head[0]
	}
	l.CName = head[1]
	if !token.IsIdentifier(l.CName) {
		return nil, fmt.Errorf("%q is no C name", l.CName)
	}
	if args := strings.TrimSpace(line[open+1 : close]); args != "" && args != "void" {
		for _, a := range strings.Split(args, ",") {
			p, err := ParseParam(a)
			if err != nil {
				return nil, fmt.Errorf("%s: %v", l.CName, err)
			}
			l.Params = append(l.Params, p)
		}
	}
	l.Options = strings.Fields(line[close+1:])
	return l, nil
}
