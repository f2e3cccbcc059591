// Package cpp is the fake NVRTC's C preprocessor and kernel finder: it
// applies #include (in-memory headers, then -I directories), #define,
// #undef, the conditional directives (with C preprocessor expressions),
// #pragma once, #error and #warning, within bounds on its work so that
// hostile input fails in bounded time and memory, and finds the
// __global__ functions of what is left. The pretend compiler of package
// fake builds on it; it knows nothing of the fake.
package cpp

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unsafe"
)

// Unit is one compile's input.
type Unit struct {
	Name, Source string
	// HeaderNames and Headers are the program's in-memory headers: the
	// include names and their texts, found before the include paths.
	HeaderNames, Headers []string
	IncludePaths         []string          // the -I directories, in order
	Macros               map[string]string // -D: "NAME" or "F(x)" to its body
}

// Output is what the preprocessor made of a Unit.
type Output struct {
	Lines    []Line   // the active source lines of the unit itself
	Errors   []string // in NVRTC's format: "name(line): error: ..."
	Warnings []string
	// Catastrophic says an error ended the preprocessing (nesting too
	// deep, a bound on the work exceeded, #error): the last of Errors.
	Catastrophic bool
}

// Preprocess preprocesses u.
func Preprocess(u Unit) Output {
	var errs, warns []string
	m := newMacros()
	for k, v := range u.Macros {
		name, _, funcLike := strings.Cut(k, "(") // -D'F(x)=x'
		m.define(name, v, funcLike)
	}
	size := len(u.Source)
	for _, h := range u.Headers {
		size += len(h)
	}
	for k, v := range u.Macros {
		size += len(k) + len(v)
	}
	m.bound(size)
	in := &includer{names: u.HeaderNames, headers: u.Headers, paths: u.IncludePaths, errs: &errs, warns: &warns, m: m,
		once: map[string]bool{}, files: map[string]*string{}, stripped: map[string]string{}}
	lines := in.preprocess(u.Name, u.Source, 0)
	return Output{Lines: lines, Errors: errs, Warnings: warns, Catastrophic: in.stop}
}

// stripComments blanks // and /* */ comments, keeping newlines (and so
// line numbers) and string literals. Text with no "/" is returned as it
// is; other text is copied once.
func stripComments(src string) string {
	if strings.IndexByte(src, '/') < 0 {
		return src
	}
	out := []byte(src)
	for i := 0; i < len(out); i++ {
		switch {
		case out[i] == '"' || out[i] == '\'':
			q := out[i]
			for i++; i < len(out) && out[i] != q && out[i] != '\n'; i++ {
				if out[i] == '\\' {
					i++
				}
			}
		case out[i] == '/' && i+1 < len(out) && out[i+1] == '/':
			for ; i < len(out) && out[i] != '\n'; i++ {
				out[i] = ' '
			}
		case out[i] == '/' && i+1 < len(out) && out[i+1] == '*':
			for ; i < len(out) && !(out[i] == '*' && i+1 < len(out) && out[i+1] == '/'); i++ {
				if out[i] != '\n' {
					out[i] = ' '
				}
			}
			if i < len(out) {
				out[i], out[i+1] = ' ', ' '
				i++
			}
		}
	}
	return unsafe.String(unsafe.SliceData(out), len(out)) // out is not written again
}

// lineReader reads a text line by line, as strings.Split(text, "\n")
// would give them, without making that slice.
type lineReader struct {
	text string
	pos  int // the start of the next line; len(text)+1 after the last
	n    int // the lines read: the number of the last one
}

// more reports whether a line is left.
func (r *lineReader) more() bool { return r.pos <= len(r.text) }

// next returns the next line; more must be true.
func (r *lineReader) next() string {
	r.n++
	rest := r.text[r.pos:]
	if i := strings.IndexByte(rest, '\n'); i >= 0 {
		r.pos += i + 1
		return rest[:i]
	}
	r.pos = len(r.text) + 1
	return rest
}

// codeLines counts the lines of text that are neither blank nor
// directives: at most the active lines preprocess keeps.
func codeLines(text string) int {
	n := 0
	for r := (lineReader{text: text}); r.more(); {
		if t := strings.TrimSpace(r.next()); t != "" && t[0] != '#' {
			n++
		}
	}
	return n
}

// Line is one active (not #if'ed out, not a directive) source line.
type Line struct {
	n    int
	text string
}

// Bounds on the fake preprocessor's work for one compile, so that hostile
// input fails in bounded time: a header that includes itself, or headers
// that each include the next twice, would otherwise take exponential time.
const (
	// maxIncludeDepth is the deepest nesting of #include, as GCC's
	// default -fmax-include-depth.
	maxIncludeDepth = 200
	// maxIncludes is the most #include directives followed in one compile.
	maxIncludes = 1 << 16
	// maxPreprocessBytes is the most text (source and headers, each time
	// included) read in one compile.
	maxPreprocessBytes = 32 << 20
)

// includer resolves #include: the program's in-memory headers first,
// then the -I directories on disk. It holds what one compile's
// preprocessing shares: the macros, the #pragma once files and the
// bounds on its work.
type includer struct {
	names   []string // the in-memory headers' include names
	headers []string // and their texts
	paths   []string
	errs    *[]string
	warns   *[]string
	m       *macros

	once     map[string]bool    // files with #pragma once
	files    map[string]*string // files read from the -I directories (nil: none)
	stripped map[string]string  // the included files without their comments
	includes int                // #include directives followed
	read     int                // bytes of text preprocessed
	stop     bool               // a catastrophic error ended the compile
}

func (in *includer) find(name string) (string, bool) {
	for i, n := range in.names {
		if n == name {
			return in.headers[i], true
		}
	}
	if f, ok := in.files[name]; ok {
		return deref(f)
	}
	var found *string
	for _, dir := range in.paths {
		if text, ok := readSource(filepath.Join(dir, name), maxPreprocessBytes-in.read); ok {
			found = &text
			break
		}
	}
	in.files[name] = found
	return deref(found)
}

func deref(s *string) (string, bool) {
	if s == nil {
		return "", false
	}
	return *s, true
}

// readSource reads a regular file of at most limit bytes (a larger one is
// read to limit+1, for the caller to refuse); a directory, a device or a
// FIFO is not a source file.
func readSource(path string, limit int) (string, bool) {
	f, err := os.Open(path)
	if err != nil {
		return "", false
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return "", false
	}
	b, err := io.ReadAll(io.LimitReader(f, int64(max(limit, 0))+1))
	if err != nil {
		return "", false
	}
	return string(b), true
}

func (in *includer) catastrophic(name string, line int, format string, args ...any) {
	*in.errs = append(*in.errs, fmt.Sprintf("%s(%d): catastrophic error: %s", name, line, fmt.Sprintf(format, args...)))
	in.stop = true
}

// maxErrors is the most errors one compile reports: the next ends it, as
// NVRTC's front end ends at its error limit.
const maxErrors = 100

// errorf records an error at line of file name; past maxErrors it ends
// the compile instead.
func (in *includer) errorf(name string, line int, format string, args ...any) {
	if len(*in.errs) >= maxErrors {
		in.catastrophic(name, line, "error limit reached: %d errors detected", maxErrors)
		return
	}
	*in.errs = append(*in.errs, fmt.Sprintf("%s(%d): error: %s", name, line, fmt.Sprintf(format, args...)))
}

// ifError records err of an #if or #elif at line of file name: an error
// of the expression, or, once the compile's #if expressions used their
// budget, the catastrophic error that ends the compile.
func (in *includer) ifError(name string, line int, err error) {
	if errors.Is(err, errBudget) {
		in.catastrophic(name, line, "%v", err)
		return
	}
	in.errorf(name, line, "%v", err)
}

// preprocess handles #include, #define, #undef, the conditional
// directives (#if and #elif evaluate C preprocessor expressions, see
// evalIf), #pragma once, #error and #warning; other directives are
// ignored. It returns the active lines of the unit's own file (depth 0;
// blank lines are left out), and nothing for the headers it includes,
// whose directives it applies. A catastrophic error (nesting too deep, a
// bound on the work exceeded) stops it. Its memory is within a small
// multiple of its input: each header's text is stripped of its comments
// once, however often it is included, and the lines are read in place.
func (in *includer) preprocess(name, src string, depth int) []Line {
	if in.stop {
		return nil
	}
	in.read += len(src)
	if in.read > maxPreprocessBytes {
		in.catastrophic(name, 1, "the text preprocessed exceeds the fake NVRTC's limit of %d bytes in one compile", maxPreprocessBytes)
		return nil
	}
	type frame struct{ active, taken, parent, sawElse bool }
	var stack []frame
	active := true
	var out []Line
	var text string
	if depth == 0 {
		text = stripComments(src)
		out = make([]Line, 0, codeLines(text))
	} else {
		var ok bool
		if text, ok = in.stripped[name]; !ok {
			text = stripComments(src)
			in.stripped[name] = text
		}
	}
	errorf := func(line int, format string, args ...any) { in.errorf(name, line, format, args...) }
	for lr := (lineReader{text: text}); lr.more() && !in.stop; {
		line := lr.next()
		ln := lr.n
		t := strings.TrimSpace(line)
		if !strings.HasPrefix(t, "#") {
			if active && depth == 0 && t != "" {
				out = append(out, Line{ln, line})
			}
			continue
		}
		if strings.HasSuffix(t, "\\") && lr.more() {
			// Splice the continued lines into one directive.
			var sb strings.Builder
			sb.WriteString(t[:len(t)-1])
			for lr.more() {
				next := strings.TrimRight(lr.next(), " \t\r")
				if !strings.HasSuffix(next, "\\") || !lr.more() {
					sb.WriteString(next)
					break
				}
				sb.WriteString(next[:len(next)-1])
			}
			t = strings.TrimSpace(sb.String())
		}
		d := strings.TrimSpace(t[1:])
		j := 0
		for j < len(d) && isIdentByte(d[j]) {
			j++
		}
		word, rest := d[:j], strings.TrimSpace(d[j:])
		switch word {
		case "if", "ifdef", "ifndef":
			cond := false
			if active {
				switch word {
				case "ifdef", "ifndef":
					macro, ok := macroName(rest)
					if !ok {
						errorf(ln, "#%s expects a macro name", word)
					}
					_, cond = in.m.defs[macro]
					cond = cond == (word == "ifdef")
				default:
					var err error
					if cond, err = evalIf(rest, in.m); err != nil {
						in.ifError(name, ln, err)
					}
				}
			}
			stack = append(stack, frame{active: active && cond, taken: cond, parent: active})
			active = active && cond
		case "elif":
			if len(stack) == 0 {
				errorf(ln, "#elif without #if")
				continue
			}
			f := &stack[len(stack)-1]
			if f.sawElse {
				errorf(ln, "#elif after #else")
			}
			cond := false
			if f.parent && !f.taken {
				var err error
				if cond, err = evalIf(rest, in.m); err != nil {
					in.ifError(name, ln, err)
				}
			}
			f.taken = f.taken || cond
			f.active = f.parent && cond
			active = f.active
		case "else":
			if len(stack) == 0 {
				errorf(ln, "#else without #if")
				continue
			}
			f := &stack[len(stack)-1]
			if f.sawElse {
				errorf(ln, "#else after #else")
			}
			f.sawElse = true
			f.active = f.parent && !f.taken
			f.taken = true
			active = f.active
		case "endif":
			if len(stack) == 0 {
				errorf(ln, "#endif without #if")
				continue
			}
			active = stack[len(stack)-1].parent
			stack = stack[:len(stack)-1]
		case "define":
			if active {
				macro, ok := macroName(rest)
				if !ok {
					errorf(ln, "#define expects a macro name")
					continue
				}
				body := rest[len(macro):]
				funcLike := strings.HasPrefix(body, "(")
				if funcLike {
					// The parameters, up to the first ")", are not kept: the
					// fake never expands a function-like macro.
					if k := strings.IndexByte(body, ')'); k >= 0 {
						body = body[k+1:]
					} else {
						errorf(ln, "#define %s: expected a \")\" after the macro parameters", macro)
						continue
					}
				}
				in.m.define(macro, strings.TrimSpace(body), funcLike)
			}
		case "undef":
			if active {
				macro, ok := macroName(rest)
				if !ok {
					errorf(ln, "#undef expects a macro name")
					continue
				}
				in.m.undef(macro)
			}
		case "pragma":
			if active && strings.Fields(rest) != nil && strings.Fields(rest)[0] == "once" {
				in.once[name] = true
			}
		case "error":
			if active {
				errorf(ln, "#error directive: %s", rest)
			}
		case "warning":
			if active {
				*in.warns = append(*in.warns, fmt.Sprintf("%s(%d): warning #1105-D: #warning directive: %s", name, ln, rest))
			}
		case "include":
			if !active {
				continue
			}
			file := strings.Trim(rest, "\"<> \t")
			if in.once[file] {
				continue
			}
			if depth+1 > maxIncludeDepth {
				in.catastrophic(name, ln, "#include nested too deeply (more than %d levels)", maxIncludeDepth)
				continue
			}
			if in.includes++; in.includes > maxIncludes {
				in.catastrophic(name, ln, "#include %q exceeds the fake NVRTC's limit of %d #include directives in one compile", file, maxIncludes)
				continue
			}
			text, ok := in.find(file)
			if !ok && (strings.HasPrefix(rest, "<") || builtinHeader(file)) {
				continue // a system, toolkit or NVRTC built-in header the fake cannot see
			}
			if !ok {
				*in.errs = append(*in.errs, fmt.Sprintf("%s(%d): catastrophic error: cannot open source file %q", name, ln, file))
				continue
			}
			in.preprocess(file, text, depth+1)
		}
	}
	if len(stack) > 0 && !in.stop {
		errorf(strings.Count(text, "\n")+1, "expected an #endif")
	}
	return out
}

// macroName returns the identifier that starts s.
func macroName(s string) (string, bool) {
	if s == "" || !isIdentStart(s[0]) {
		return "", false
	}
	j := 1
	for j < len(s) && isIdentByte(s[j]) {
		j++
	}
	return s[:j], true
}

// IsIdent reports whether s is a C identifier (a letter or _, then
// letters, digits and _), as kernel and macro names must be.
func IsIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// CheckBraces reports unbalanced braces the way the front end does.
func CheckBraces(lines []Line, errorf func(int, string, ...any)) {
	depth, last := 0, 1
	for _, l := range lines {
		inStr := byte(0)
		for i := 0; i < len(l.text); i++ {
			c := l.text[i]
			switch {
			case inStr != 0:
				if c == '\\' {
					i++
				} else if c == inStr {
					inStr = 0
				}
			case c == '"' || c == '\'':
				inStr = c
			case c == '{':
				depth++
			case c == '}':
				depth--
				if depth < 0 {
					errorf(l.n, "expected a declaration")
					depth = 0
				}
			}
		}
		if strings.TrimSpace(l.text) != "" {
			last = l.n
		}
	}
	if depth > 0 {
		errorf(last, "expected a \"}\"")
	}
}

// Kernel is a __global__ function found in the source.
type Kernel struct {
	Name     string
	Line     int
	Template bool
	Params   int // -1 when the parameter list could not be read
}

// FindKernels finds the __global__ functions of the active source: each
// is the identifier before the first "(" after a __global__, a template
// when "template" comes between the previous ";", "{" or "}" and it. It
// takes time in proportion to the size of the source, whatever its shape.
func FindKernels(lines []Line) []Kernel {
	var sb strings.Builder
	starts := make([]int, len(lines)) // offset of each line in src
	for i, l := range lines {
		starts[i] = sb.Len()
		sb.WriteString(l.text)
		sb.WriteByte('\n')
	}
	src := sb.String()
	lineAt := func(off int) int {
		return lines[sort.Search(len(starts), func(i int) bool { return starts[i] > off })-1].n
	}

	// The __global__ keywords and the first "(" after each.
	type found struct{ at, open int }
	var all []found
	for off, open := 0, -1; ; {
		i := strings.Index(src[off:], "__global__")
		if i < 0 {
			break
		}
		at := off + i
		off = at + len("__global__")
		if open < off {
			j := strings.IndexByte(src[off:], '(')
			if j < 0 {
				break
			}
			open = off + j
		}
		all = append(all, found{at, open})
	}
	if len(all) == 0 {
		return nil
	}
	closes := map[int]int{}
	for _, f := range all {
		closes[f.open] = -1
	}
	matchParens(src, all[0].open, closes)

	var out []Kernel
	lastDelim, delimAt := -1, 0 // the last ";{}" in src[:delimAt]
	lastTmpl, tmplAt := -1, 0   // the last "template" in src[:tmplAt]
	next := 0                   // the first of all at or after the list being read
	var ws, run, params int     // for the list at open: see below
	open := -1
	for _, f := range all {
		at, off := f.at, f.at+len("__global__")
		if f.open != open {
			// Blanks (as regexp's \s) and a word (\w) before the "(":
			// src[run:ws] and src[ws:open]. Distinct lists scan disjoint
			// text.
			open = f.open
			for ws = open; ws > 0 && strings.IndexByte(" \t\n\f\r", src[ws-1]) >= 0; ws-- {
			}
			for run = ws; run > 0 && isIdentByte(src[run-1]); run-- {
			}
			params = -1
			if close := closes[open]; close > 0 {
				for next < len(all) && all[next].at < open {
					next++
				}
				// A list with a __global__ in it is not a parameter list.
				if next == len(all) || all[next].at > close {
					params = countParams(src[open+1 : close])
				}
			}
		}
		// The name is the word before the "(" after this __global__, from
		// its first letter or _.
		p := max(run, off)
		for p < ws && isDigit(src[p]) {
			p++
		}
		if p >= ws {
			continue
		}
		for ; delimAt < at; delimAt++ {
			if c := src[delimAt]; c == ';' || c == '{' || c == '}' {
				lastDelim = delimAt
			}
		}
		for ; tmplAt+len("template") <= at; tmplAt++ {
			if strings.HasPrefix(src[tmplAt:], "template") {
				lastTmpl = tmplAt
			}
		}
		out = append(out, Kernel{Name: src[p:ws], Line: lineAt(at), Template: lastTmpl > lastDelim, Params: params})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Line < out[j].Line })
	return out
}

// matchParens sets closes[i] to the index of the ")" that closes the "("
// at s[i], for each i of closes (from index from on; those never closed
// are left as they are).
func matchParens(s string, from int, closes map[int]int) {
	var stack []int
	for i := from; i < len(s); i++ {
		switch s[i] {
		case '(':
			stack = append(stack, i)
		case ')':
			if n := len(stack); n > 0 {
				if _, ok := closes[stack[n-1]]; ok {
					closes[stack[n-1]] = i
				}
				stack = stack[:n-1]
			}
		}
	}
}

// countParams counts the top-level comma-separated parameters of a C
// parameter list ("void" and "" are none).
func countParams(list string) int {
	t := strings.TrimSpace(list)
	if t == "" || t == "void" {
		return 0
	}
	n, depth := 1, 0
	for _, c := range t {
		switch c {
		case '(', '<', '[', '{':
			depth++
		case ')', '>', ']', '}':
			depth--
		case ',':
			if depth == 0 {
				n++
			}
		}
	}
	return n
}

// builtinHeader reports the headers NVRTC (or the CUDA toolkit it is
// usually pointed at) provides, which the fake accepts unseen.
func builtinHeader(name string) bool {
	switch name {
	case "cuda_fp16.h", "cuda_bf16.h", "cuda_fp8.h", "cuda_fp4.h", "cuda_fp6.h", "cuda_runtime.h",
		"cuda_runtime_api.h", "cuda.h", "device_launch_parameters.h", "cooperative_groups.h",
		"cstdint", "stdint.h", "cstddef", "stddef.h", "climits", "limits.h", "cmath", "math.h", "type_traits":
		return true
	}
	return strings.HasPrefix(name, "cuda/") || strings.HasPrefix(name, "cooperative_groups/")
}
