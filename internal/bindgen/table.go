package main

import (
	"bufio"
	"bytes"
	"fmt"
	"go/token"
	"strconv"
	"strings"

	"github.com/nocgo/cuda/internal/bindgen/cdecl"
)

// param is one C parameter of an entry point.
type param = cdecl.Param

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
		b.WriteString(p.CType + " " + p.Name)
		if p.Const != "" {
			b.WriteString(" = " + p.Const)
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
	l, err := cdecl.ParseLine(line)
	if err != nil {
		return nil, err
	}
	e := &entry{method: l.Method, cname: l.CName, params: l.Params, note: l.Note}
	for _, opt := range l.Options {
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
