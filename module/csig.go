package module

import (
	"reflect"
	"regexp"
	"slices"
	"strings"

	"github.com/nocgo/cuda/memory"
)

// cParam is what a kernel's CUDA C signature says of one parameter, for
// the launch errors and checks of a module compiled from source (Compile):
// its name and declaration ("n", "int n"), and what Go values it takes
// where the C type is one of the common ones.
type cParam struct {
	name string // "n"; "" for a parameter without a name
	decl string // "int n", "const float* in"
	goTy string // the Go type to pass a scalar as, "int32"; "" unknown
	ptr  bool   // a pointer ("float*", "void*")
	// bufs are the buffer types a pointer parameter takes ("float*":
	// *memory.Buffer[float32]); nil: any, unchecked (void*, a struct, a
	// template parameter).
	bufs []reflect.Type
}

// cScalars maps the common C scalar types, qualifiers removed, to the Go
// type a launch passes them as (LP64: long is 64 bits).
var cScalars = map[string]string{
	"float": "float32", "double": "float64", "bool": "bool",
	"char": "int8", "signed char": "int8", "unsigned char": "uint8",
	"short": "int16", "short int": "int16", "signed short": "int16", "unsigned short": "uint16", "unsigned short int": "uint16",
	"int": "int32", "signed": "int32", "signed int": "int32", "unsigned": "uint32", "unsigned int": "uint32",
	"long": "int64", "long int": "int64", "unsigned long": "uint64", "unsigned long int": "uint64",
	"long long": "int64", "long long int": "int64", "unsigned long long": "uint64", "unsigned long long int": "uint64",
	"int8_t": "int8", "uint8_t": "uint8", "int16_t": "int16", "uint16_t": "uint16",
	"int32_t": "int32", "uint32_t": "uint32", "int64_t": "int64", "uint64_t": "uint64",
	"size_t": "uint64", "ptrdiff_t": "int64",
}

// cBuffers maps a Go element type to the buffer types that pass for a
// pointer to it. A char* is not checked (it takes any bytes).
var cBuffers = map[string][]reflect.Type{
	"float32": {reflect.TypeFor[*memory.Buffer[float32]]()},
	"float64": {reflect.TypeFor[*memory.Buffer[float64]]()},
	"bool":    {reflect.TypeFor[*memory.Buffer[bool]]()},
	"int16":   {reflect.TypeFor[*memory.Buffer[int16]]()},
	"uint16":  {reflect.TypeFor[*memory.Buffer[uint16]]()},
	"int32":   {reflect.TypeFor[*memory.Buffer[int32]]()},
	"uint32":  {reflect.TypeFor[*memory.Buffer[uint32]]()},
	"int64":   {reflect.TypeFor[*memory.Buffer[int64]](), reflect.TypeFor[*memory.Buffer[int]]()},
	"uint64":  {reflect.TypeFor[*memory.Buffer[uint64]](), reflect.TypeFor[*memory.Buffer[uint]]()},
}

// numberBuffers are the buffers of a number type wider than a byte: one
// of them for a pointer to another number type is a mistake. Byte buffers
// (views of any memory) and buffers of structs are reinterpretations, and
// pass.
var numberBuffers = func() map[reflect.Type]bool {
	m := map[reflect.Type]bool{}
	for _, ts := range cBuffers {
		for _, t := range ts {
			m[t] = true
		}
	}
	return m
}()

// refuses reports whether the pointer parameter refuses a buffer of type t.
func (c *cParam) refuses(t reflect.Type) bool {
	return c.bufs != nil && numberBuffers[t] && !slices.Contains(c.bufs, t)
}

var (
	cComment    = regexp.MustCompile(`(?s)//[^\n]*|/\*.*?\*/`)
	cIdentifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	cTrailingID = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*$`)
)

// cQualifiers are left out of a parameter's type.
var cQualifiers = map[string]bool{"const": true, "volatile": true, "__restrict__": true, "__restrict": true, "restrict": true, "struct": true}

// cSignature returns the parameters of the __global__ function name in
// the CUDA C source src, where it is declared once, with a signature read
// simply (no macro in it, no array parameter); else false, and launches are
// checked against the PTX alone.
func cSignature(src, name string) ([]cParam, bool) {
	if !cIdentifier.MatchString(name) || !strings.Contains(src, name) {
		return nil, false
	}
	src = cComment.ReplaceAllString(src, " ")
	re, err := regexp.Compile(`__global__(?:[^;{}()]|\([^()]*\))*\b` + name + `\s*\(`)
	if err != nil {
		return nil, false
	}
	at := re.FindAllStringIndex(src, 2)
	if len(at) != 1 {
		return nil, false
	}
	list, ok := cParens(src[at[0][1]:])
	if !ok {
		return nil, false
	}
	if t := strings.TrimSpace(list); t == "" || t == "void" {
		return []cParam{}, true
	}
	var ps []cParam
	for _, decl := range cSplit(list) {
		p, ok := cParamOf(decl)
		if !ok {
			return nil, false
		}
		ps = append(ps, p)
	}
	return ps, true
}

// cParens returns the text up to the ')' that closes the '(' before s.
func cParens(s string) (string, bool) {
	depth := 1
	for i, r := range s {
		switch r {
		case '(':
			depth++
		case ')':
			if depth--; depth == 0 {
				return s[:i], true
			}
		case '#', '{', ';':
			return "", false // a directive or a body inside the list: not simple
		}
	}
	return "", false
}

// cSplit splits a parameter list at its top-level commas (not those of a
// template's arguments).
func cSplit(list string) []string {
	var out []string
	depth, start := 0, 0
	for i, r := range list {
		switch r {
		case '<', '(', '[':
			depth++
		case '>', ')', ']':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, list[start:i])
				start = i + 1
			}
		}
	}
	return append(out, list[start:])
}

// cParamOf reads one parameter declaration.
func cParamOf(decl string) (cParam, bool) {
	if i := strings.IndexByte(decl, '='); i >= 0 {
		decl = decl[:i] // a default argument
	}
	decl = strings.Join(strings.Fields(decl), " ")
	if decl == "" || strings.ContainsAny(decl, "[]()") {
		return cParam{}, false
	}
	p := cParam{decl: decl}
	typ := decl
	if id := cTrailingID.FindString(decl); id != "" && !cQualifiers[id] {
		rest := strings.TrimSpace(strings.TrimSuffix(decl, id))
		if rest != "" && !isCTypeWord(id) {
			p.name, typ = id, rest
		}
	}
	stars := strings.Count(typ, "*")
	p.ptr = stars > 0 && !strings.Contains(typ, "&")
	var words []string
	for _, w := range strings.Fields(strings.NewReplacer("*", " ", "&", " ").Replace(typ)) {
		if !cQualifiers[w] {
			words = append(words, w)
		}
	}
	goTy := cScalars[strings.Join(words, " ")]
	switch {
	case strings.Contains(typ, "&"):
		// A reference: leave it to the PTX.
	case stars == 0:
		p.goTy = goTy
	case stars == 1 && goTy != "" && goTy != "int8" && goTy != "uint8":
		p.bufs = cBuffers[goTy] // a char* takes any bytes: unchecked
	}
	return p, true
}

// isCTypeWord reports whether w is a word of a C type, not a name: the
// last word of an unnamed parameter ("unsigned int").
func isCTypeWord(w string) bool {
	switch w {
	case "int", "char", "short", "long", "float", "double", "bool", "void", "signed", "unsigned":
		return true
	}
	_, ok := cScalars[w]
	return ok
}

// label is how errors name the parameter: its C declaration where the
// module's source says it, else its PTX name.
func (p *param) label() string {
	if p.c != nil {
		return p.c.decl
	}
	return p.name
}
