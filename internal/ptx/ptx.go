// Package ptx reads kernel signatures out of PTX text: the .entry
// directives and their .param lists, with each parameter's size and
// alignment and its offset in the parameter buffer (laid out by C rules, as
// cuFuncGetParamInfo reports it). Package module uses it to check launch
// arguments where the driver cannot say what a kernel takes.
//
// Only what a launch needs is parsed: entry names and parameter lists.
// Function bodies, .func declarations and every other directive are skipped.
package ptx

import (
	"fmt"
	"strconv"
	"strings"
)

// Param is one kernel parameter.
type Param struct {
	Name   string // the PTX name, such as "f_param_0"
	Type   string // the PTX type without the dot: "u64", "f32", "b8", ...
	Size   int    // bytes
	Align  int    // bytes; a power of two
	Offset int    // bytes from the start of the parameter buffer
	// Array is the element count of an array parameter (".b8 p[16]", a
	// struct passed by value), 0 for a scalar.
	Array int
	// Pointer reports a scalar annotated with .ptr (a pointer to global,
	// shared, ... memory).
	Pointer bool
}

// Entry is one kernel (.entry) and its parameters.
type Entry struct {
	Name   string
	Params []Param
	// Linkage is "visible", "weak", "extern" or "" (no linkage directive).
	Linkage string
}

// Size returns the size of the entry's parameter buffer: the end of its
// last parameter (0 for none).
func (e *Entry) Size() int {
	if len(e.Params) == 0 {
		return 0
	}
	p := e.Params[len(e.Params)-1]
	return p.Offset + p.Size
}

// Error is a signature that could not be read. Line counts from 1.
type Error struct {
	Line int
	Msg  string
}

// Error returns "ptx: line N: message".
func (e *Error) Error() string { return fmt.Sprintf("ptx: line %d: %s", e.Line, e.Msg) }

// Limits of a kernel's parameter space. The PTX ISA (section "Kernel and
// Function Directives: .entry", PTX ISA Notes) says: "The maximum memory
// size supported by PTX for normal (non-opaque type) parameters is 32764
// bytes", for PTX ISA 8.1 and above (CUDA 12.1; the CUDA C++ Programming
// Guide allows it on Volta, sm_70, and later); earlier PTX ISA versions
// allow 4352 bytes (256 before PTX ISA 1.5). The parser takes the largest
// limit of any version, so that it refuses no valid PTX; what is too large
// for an older target is the JIT compiler's to refuse.
const (
	// MaxParamSize is the largest parameter buffer of an entry, in bytes:
	// every parameter must end at or before it.
	MaxParamSize = 32764
	// MaxAlign is the largest .align taken for a parameter. The PTX ISA
	// ("Alignment") only requires a power of two; any alignment above the
	// size of the parameter space could only place a parameter at offset 0,
	// so the first power of two above MaxParamSize bounds it.
	MaxAlign = 32768
)

// scalarSizes maps PTX fundamental types to their size in bytes.
var scalarSizes = map[string]int{
	"b8": 1, "s8": 1, "u8": 1,
	"b16": 2, "s16": 2, "u16": 2, "f16": 2, "bf16": 2,
	"b32": 4, "s32": 4, "u32": 4, "f32": 4, "f16x2": 4, "bf16x2": 4,
	"b64": 8, "s64": 8, "u64": 8, "f64": 8,
	"b128": 16,
}

// Parse returns every .entry of the PTX text src, in order. A trailing NUL
// (as in an image for cuModuleLoadData) is allowed. Text without entries
// gives none and no error; an entry whose parameter list cannot be read is
// an *Error.
func Parse(src string) ([]Entry, error) {
	toks := tokenize(src)
	var entries []Entry
	for i := 0; i < len(toks); i++ {
		if toks[i].s != ".entry" {
			continue
		}
		linkage := ""
		if i > 0 {
			switch toks[i-1].s {
			case ".visible", ".weak", ".extern":
				linkage = toks[i-1].s[1:]
			}
		}
		e, next, err := parseEntry(toks, i+1)
		if err != nil {
			return nil, err
		}
		e.Linkage = linkage
		entries = append(entries, e)
		i = next - 1
	}
	return entries, nil
}

// Find returns the entry called name from entries.
func Find(entries []Entry, name string) (Entry, bool) {
	for _, e := range entries {
		if e.Name == name {
			return e, true
		}
	}
	return Entry{}, false
}

type token struct {
	s    string
	line int
}

// tokenize splits PTX into identifiers/directives/numbers and single
// punctuation characters, dropping comments and whitespace.
func tokenize(src string) []token {
	var toks []token
	line := 1
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '\n':
			line++
			i++
		case c == ' ' || c == '\t' || c == '\r' || c == 0 || c == '\f' || c == '\v':
			i++
		case c == '/' && i+1 < len(src) && src[i+1] == '/':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			i += 2
			for i < len(src) && !(src[i] == '*' && i+1 < len(src) && src[i+1] == '/') {
				if src[i] == '\n' {
					line++
				}
				i++
			}
			i += 2
		case c == '"':
			// String literals (in .file directives): skip whole.
			j := i + 1
			for j < len(src) && src[j] != '"' && src[j] != '\n' {
				j++
			}
			toks = append(toks, token{src[i:min(j+1, len(src))], line})
			i = j + 1
		case isWord(c):
			j := i
			for j < len(src) && isWord(src[j]) {
				j++
			}
			toks = append(toks, token{src[i:j], line})
			i = j
		default:
			toks = append(toks, token{src[i : i+1], line})
			i++
		}
	}
	return toks
}

// isWord reports characters of PTX identifiers, directives and numbers.
func isWord(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c == '_' || c == '$' || c == '%' || c == '.'
}

// parseEntry reads "name ( params )" starting at toks[i]; it returns the
// index just past the closing parenthesis.
func parseEntry(toks []token, i int) (Entry, int, error) {
	line := 0
	if i > 0 {
		line = toks[i-1].line
	}
	if i >= len(toks) || !isIdent(toks[i].s) {
		return Entry{}, 0, &Error{line, ".entry without a name"}
	}
	e := Entry{Name: toks[i].s}
	i++
	// PTX names are identifiers, but be lenient with tools that write C++
	// names ("fill<float>"): take every name-like token up to the list.
	for i < len(toks) && (nameWord(toks[i].s) || strings.Contains("<>:,*&", toks[i].s)) && toks[i].line == toks[i-1].line {
		e.Name += toks[i].s
		i++
	}
	if i >= len(toks) || toks[i].s != "(" {
		// A declaration without a parameter list is a kernel with none.
		return e, i, nil
	}
	i++
	offset := 0
	for {
		if i >= len(toks) {
			return Entry{}, 0, &Error{line, fmt.Sprintf("entry %s: unterminated parameter list", e.Name)}
		}
		if toks[i].s == ")" {
			return e, i + 1, nil
		}
		p, next, err := parseParam(toks, i, e.Name)
		if err != nil {
			return Entry{}, 0, err
		}
		// offset <= MaxParamSize, 1 <= p.Align <= MaxAlign and
		// 1 <= p.Size <= MaxParamSize (parseParam): none of this overflows.
		p.Offset = alignUp(offset, p.Align)
		if p.Offset > MaxParamSize-p.Size {
			return Entry{}, 0, &Error{toks[i].line, fmt.Sprintf("entry %s: parameter %s (%d bytes at offset %d) exceeds the %d-byte parameter space",
				e.Name, p.Name, p.Size, p.Offset, MaxParamSize)}
		}
		offset = p.Offset + p.Size
		e.Params = append(e.Params, p)
		i = next
		if i < len(toks) && toks[i].s == "," {
			i++
		}
	}
}

// parseParam reads one ".param [.align N] .type [.ptr [.space] [.align N]] name[[N]]".
func parseParam(toks []token, i int, entry string) (Param, int, error) {
	bad := func(msg string) (Param, int, error) {
		return Param{}, 0, &Error{toks[min(i, len(toks)-1)].line, fmt.Sprintf("entry %s: %s", entry, msg)}
	}
	if toks[i].s != ".param" {
		return bad(fmt.Sprintf("expected .param, found %q", toks[i].s))
	}
	i++
	var p Param
	align := 0
	for ; i < len(toks); i++ {
		s := toks[i].s
		switch {
		case s == ".align":
			if i+1 >= len(toks) {
				return bad(".align without a value")
			}
			n, err := strconv.Atoi(toks[i+1].s)
			if err != nil || n <= 0 || n&(n-1) != 0 {
				return bad(fmt.Sprintf("bad .align %q: not a positive power of two", toks[i+1].s))
			}
			// After .ptr, .align is the pointee's alignment, not the
			// parameter's: it does not bound the layout.
			if p.Type == "" {
				if n > MaxAlign {
					return bad(fmt.Sprintf("bad .align %d: more than %d", n, MaxAlign))
				}
				align = n
			}
			i++
		case s == ".ptr":
			p.Pointer = true
		case s == ".global" || s == ".shared" || s == ".const" || s == ".local":
			// state space of a .ptr parameter
		case strings.HasPrefix(s, ".") && p.Type == "":
			t := s[1:]
			size, ok := scalarSizes[t]
			if !ok {
				return bad(fmt.Sprintf("unknown parameter type %q", s))
			}
			p.Type, p.Size = t, size
		case isIdent(s):
			if p.Type == "" {
				return bad(fmt.Sprintf("parameter %s has no type", s))
			}
			p.Name = s
			i++
			for i < len(toks) && (nameWord(toks[i].s) || strings.Contains("<>:*&", toks[i].s)) {
				p.Name += toks[i].s
				i++
			}
			if i < len(toks) && toks[i].s == "[" {
				if i+2 >= len(toks) || toks[i+2].s != "]" {
					return bad(fmt.Sprintf("parameter %s: bad array size", s))
				}
				n, err := strconv.Atoi(toks[i+1].s)
				if err != nil || n <= 0 {
					return bad(fmt.Sprintf("parameter %s: bad array size %q", s, toks[i+1].s))
				}
				p.Array = n
				i += 3
			}
			// The default alignment is the element's size (PTX ISA,
			// "Alignment"), an explicit .align replaces it.
			p.Align = p.Size
			if align != 0 {
				p.Align = align
			}
			if p.Array > 0 {
				// p.Size (the element's) is 1 to 16: compared before
				// multiplying, so that the product cannot overflow.
				if p.Array > MaxParamSize/p.Size {
					return bad(fmt.Sprintf("parameter %s: %d elements of %d bytes exceed the %d-byte parameter space", p.Name, p.Array, p.Size, MaxParamSize))
				}
				p.Size *= p.Array
			}
			return p, i, nil
		default:
			return bad(fmt.Sprintf("unexpected %q in parameter list", s))
		}
	}
	return bad("unterminated parameter")
}

func isIdent(s string) bool {
	if s == "" || s[0] == '.' || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isWord(s[i]) || s[i] == '.' {
			return false
		}
	}
	return true
}

// nameWord reports a word token that can be part of a (lenient) name: not
// a directive.
func nameWord(s string) bool { return s != "" && s[0] != '.' && isWord(s[0]) }

func alignUp(n, a int) int {
	if a <= 1 {
		return n
	}
	return (n + a - 1) &^ (a - 1)
}
