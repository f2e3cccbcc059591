package main

import (
	"bufio"
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"strings"

	"github.com/nocgo/cuda/internal/bindgen/cdecl"
)

// param is one C parameter of an entry point.
type param = cdecl.Param

// entry is one line of the table.
type entry struct {
	pos    string // file:line, for errors
	method string // the backend method; "" for none ("-")
	cname  string
	lib    string // "cu" (libcuda) or "nvrtc" (libnvrtc): the name's prefix
	params []param
	since  int
	cap    int
	dlsym  []string
	direct bool
	lean   bool
	hand   bool
	inner  bool   // called only inside another entry point's method: no fake entry point
	strict bool   // refused on a driver older than since (which has an older ABI under the name)
	einval string // the error for a Go int that does not fit a C int
	note   string
}

// sig returns the C signature as the generated comments show it.
func (e *entry) sig() string {
	var b strings.Builder
	b.WriteString(e.cname)
	b.WriteByte('(')
	for i, p := range e.params {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(p.CType)
		b.WriteByte(' ')
		b.WriteString(p.Name)
		if p.Const != "" {
			b.WriteString(" = " + p.Const)
		}
	}
	b.WriteByte(')')
	return b.String()
}

// parseTable parses the declaration table (see entrypoints.txt for its
// format).
func parseTable(file string, src []byte) ([]*entry, error) {
	var entries []*entry
	seenC := map[string]string{}
	seenM := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(src))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		pos := fmt.Sprintf("%s:%d", file, n)
		e, err := parseLine(line)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", pos, err)
		}
		e.pos = pos
		if p, ok := seenC[e.cname]; ok {
			return nil, fmt.Errorf("%s: %s already listed at %s", pos, e.cname, p)
		}
		seenC[e.cname] = pos
		if e.method != "" {
			if p, ok := seenM[e.method]; ok {
				return nil, fmt.Errorf("%s: method %s already listed at %s", pos, e.method, p)
			}
			seenM[e.method] = pos
		}
		entries = append(entries, e)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return entries, nil
}

func parseLine(line string) (*entry, error) {
	l, err := cdecl.ParseLine(line)
	if err != nil {
		return nil, err
	}
	e := &entry{method: l.Method, cname: l.CName, params: l.Params, note: l.Note}
	for _, lib := range []string{"nvrtc", "cu"} {
		if strings.HasPrefix(e.cname, lib) && len(e.cname) > len(lib) && token.IsExported(e.cname[len(lib):]) {
			e.lib = lib
			break
		}
	}
	if e.lib == "" {
		return nil, fmt.Errorf("%q is no libcuda (cu...) or libnvrtc (nvrtc...) entry point name", e.cname)
	}
	if strings.Contains(e.cname, "_v") {
		return nil, fmt.Errorf("%s: cuGetProcAddress takes base names; put versioned names in dlsym", e.cname)
	}
	for _, opt := range l.Options {
		k, v, hasV := strings.Cut(opt, "=")
		var err error
		switch {
		case k == "since" && hasV:
			e.since, err = strconv.Atoi(v)
		case k == "cap" && hasV:
			e.cap, err = strconv.Atoi(v)
		case k == "dlsym" && hasV:
			e.dlsym = strings.Split(v, ",")
			for _, d := range e.dlsym {
				if !strings.HasPrefix(d, e.cname) {
					err = fmt.Errorf("dlsym name %s is not a version of %s", d, e.cname)
				}
			}
		case k == "einval" && hasV:
			if !strings.HasPrefix(v, "Err") || !token.IsIdentifier(v) {
				err = fmt.Errorf("einval=%s: want a backend error name such as ErrInvalidDevice", v)
			}
			e.einval = v
		case k == "direct" && !hasV:
			e.direct = true
		case k == "lean" && !hasV:
			e.lean = true
		case k == "hand" && !hasV:
			e.hand = true
		case k == "inner" && !hasV:
			e.inner = true
		case k == "strict" && !hasV:
			e.strict = true
		default:
			err = fmt.Errorf("unknown option %q", opt)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %v", e.cname, err)
		}
	}
	if e.since <= 0 {
		return nil, fmt.Errorf("%s: since=N is required", e.cname)
	}
	if e.cap != 0 && e.cap < e.since {
		return nil, fmt.Errorf("%s: cap %d is before since %d", e.cname, e.cap, e.since)
	}
	if e.lib == "nvrtc" {
		// libnvrtc's entry points are found with dlsym, never versioned,
		// and its methods are written by hand (strings everywhere).
		if e.method != "" || e.cap != 0 || e.dlsym != nil || e.direct || e.lean || e.strict || e.einval != "" {
			return nil, fmt.Errorf("%s: a libnvrtc entry point takes no method and no option but since, inner and hand", e.cname)
		}
	}
	if e.inner && e.method != "" {
		return nil, fmt.Errorf("%s: an inner entry point has no method of its own", e.cname)
	}
	if e.method == "" && !e.hand {
		e.hand = true // nothing to generate but the sym entry
	}
	return e, nil
}

// goParam is one parameter of a backend method.
type goParam = cdecl.GoParam

// goSig is the Go signature of a method of an interface of package backend:
// its parameters and its results but the final error. Types are as written
// in package libcuda ("backend.DeviceAttribute", "unsafe.Pointer").
type goSig struct {
	cdecl.GoSig
	iface string // the interface that declares it
}

// backendFile is one Go file of package backend, for parseBackend.
type backendFile struct {
	name string
	src  []byte
}

// parseBackend reads the methods of every interface of package backend
// (backend.API and the optional interfaces) from its files. It returns
// the methods by name (a name that two optional interfaces declare maps to
// nil: the table cannot name it; one that backend.API declares is API's),
// and the names of backend.API's methods in order.
func parseBackend(files []backendFile) (map[string]*goSig, []string, error) {
	fset := token.NewFileSet()
	methods := map[string]*goSig{}
	var apiOrder []string
	for _, bf := range files {
		f, err := parser.ParseFile(fset, bf.name, bf.src, parser.SkipObjectResolution)
		if err != nil {
			return nil, nil, err
		}
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.TYPE {
				continue
			}
			for _, spec := range gd.Specs {
				ts := spec.(*ast.TypeSpec)
				iface, ok := ts.Type.(*ast.InterfaceType)
				if !ok {
					continue
				}
				for _, m := range iface.Methods.List {
					ft, ok := m.Type.(*ast.FuncType)
					if !ok || len(m.Names) != 1 {
						continue // an embedded interface: its own methods are read where it is declared
					}
					name := m.Names[0].Name
					var sig *goSig
					csig, err := cdecl.Signature(ft, "backend")
					if err != nil {
						if ts.Name.Name == "API" {
							return nil, nil, fmt.Errorf("%s: API.%s %v", bf.name, name, err)
						}
						sig = nil // not a method the generator can write: the table cannot name it
					} else {
						sig = &goSig{*csig, ts.Name.Name}
					}
					if prev, dup := methods[name]; dup {
						switch {
						case prev != nil && prev.iface == "API":
							continue // backend.API's method (Init): another interface's of the name is not libcuda's
						case ts.Name.Name != "API":
							sig = nil // two optional interfaces: the table cannot name it
						}
					}
					methods[name] = sig
					if ts.Name.Name == "API" {
						apiOrder = append(apiOrder, name)
					}
				}
			}
		}
	}
	if apiOrder == nil {
		return nil, nil, fmt.Errorf("package backend has no interface API")
	}
	return methods, apiOrder, nil
}
