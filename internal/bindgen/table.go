package main

import (
	"bufio"
	"bytes"
	"fmt"
	"go/token"
	"strconv"
	"strings"
)

// param is one C parameter of an entry point.
type param struct {
	ctype string // normalized: "unsigned int", "cufftHandle*", "const void*"
	name  string
	out   bool   // an out-parameter: a result of the Go method
	konst string // a constant passed in its place ("0"), taking no Go argument
}

// entry is one entry point of the table.
type entry struct {
	pos    string // file:line, for errors
	method string // "" for none ("-")
	cname  string
	params []param
	since  int
	hand   bool
	errctx string // the Go parameter passed to l.checkIn
	note   string
}

// family is one "family" line: a routine's entry points by precision.
type family struct {
	name   string
	cnames []string
}

// table is a parsed declaration table. entries holds every entry point
// once, in the order of first mention (a family's names included).
type table struct {
	entries  []*entry
	families []family
}

// sig returns the C signature as the generated comments show it.
func (e *entry) sig() string {
	var b strings.Builder
	b.WriteString(e.cname + "(")
	for i, p := range e.params {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(p.ctype + " " + p.name)
		if p.konst != "" {
			b.WriteString(" = " + p.konst)
		}
	}
	b.WriteString(")")
	return b.String()
}

// parseTable parses a declaration table (see the package documentation).
func parseTable(file string, src []byte) (*table, error) {
	t := &table{}
	seenC := map[string]*entry{}
	seenM := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(src))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		pos := fmt.Sprintf("%s:%d", file, n)
		if rest, ok := strings.CutPrefix(line, "family "); ok {
			f := strings.Fields(rest)
			if len(f) < 2 || !token.IsIdentifier(f[0]) || !token.IsExported(f[0]) {
				return nil, fmt.Errorf("%s: want family Name and its C names", pos)
			}
			for _, c := range t.families {
				if c.name == f[0] {
					return nil, fmt.Errorf("%s: family %s listed twice", pos, f[0])
				}
			}
			fam := family{name: f[0], cnames: f[1:]}
			for _, c := range fam.cnames {
				if !token.IsIdentifier(c) {
					return nil, fmt.Errorf("%s: %q is no C name", pos, c)
				}
				if seenC[c] == nil {
					e := &entry{pos: pos, cname: c, hand: true}
					seenC[c] = e
					t.entries = append(t.entries, e)
				}
			}
			t.families = append(t.families, fam)
			continue
		}
		e, err := parseLine(line)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", pos, err)
		}
		e.pos = pos
		if p := seenC[e.cname]; p != nil {
			return nil, fmt.Errorf("%s: %s already listed at %s", pos, e.cname, p.pos)
		}
		seenC[e.cname] = e
		if e.method != "" {
			if p, ok := seenM[e.method]; ok {
				return nil, fmt.Errorf("%s: method %s already listed at %s", pos, e.method, p)
			}
			seenM[e.method] = pos
		}
		t.entries = append(t.entries, e)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(t.entries) == 0 {
		return nil, fmt.Errorf("%s: no entry points", file)
	}
	return t, nil
}

func parseLine(line string) (*entry, error) {
	e := &entry{}
	if i := strings.Index(line, "//"); i >= 0 {
		e.note = strings.TrimSpace(line[i+2:])
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
		e.method = head[0]
	}
	e.cname = head[1]
	if !token.IsIdentifier(e.cname) {
		return nil, fmt.Errorf("%q is no C name", e.cname)
	}
	if args := strings.TrimSpace(line[open+1 : close]); args != "" && args != "void" {
		for _, a := range strings.Split(args, ",") {
			p, err := parseParam(a)
			if err != nil {
				return nil, fmt.Errorf("%s: %v", e.cname, err)
			}
			e.params = append(e.params, p)
		}
	}
	for _, opt := range strings.Fields(line[close+1:]) {
		k, v, hasV := strings.Cut(opt, "=")
		var err error
		switch {
		case k == "since" && hasV:
			e.since, err = strconv.Atoi(v)
			if err == nil && e.since < 0 {
				err = fmt.Errorf("since=%d is negative", e.since)
			}
		case k == "errctx" && hasV && token.IsIdentifier(v):
			e.errctx = v
		case k == "hand" && !hasV:
			e.hand = true
		default:
			err = fmt.Errorf("unknown option %q", opt)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %v", e.cname, err)
		}
	}
	if e.method == "" {
		if e.errctx != "" {
			return nil, fmt.Errorf("%s: errctx without a method", e.cname)
		}
		e.hand = true // nothing to generate but the index
	}
	return e, nil
}

// parseParam parses "[out] C-type name[=const]".
func parseParam(s string) (param, error) {
	f := strings.Fields(s)
	var p param
	if len(f) > 0 && f[0] == "out" {
		p.out = true
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
		name, p.konst = n, k
		if p.out {
			return p, fmt.Errorf("parameter %s: an out-parameter cannot be a constant", name)
		}
	}
	if !token.IsIdentifier(name) && !token.IsKeyword(name) {
		return p, fmt.Errorf("parameter name %q", name)
	}
	if p.out && !strings.HasSuffix(typ, "*") {
		return p, fmt.Errorf("out-parameter %s: type %s is no pointer", name, typ)
	}
	p.ctype, p.name = typ, name
	return p, nil
}
