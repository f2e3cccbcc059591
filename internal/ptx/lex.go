package ptx

import "fmt"

// token is one token of PTX text: a word (an identifier, a directive, an
// opcode with its modifiers, a number: see isWord), a string literal, or
// one punctuation character. s is a substring of the source, never a copy.
// s is "" at the end of the text (or after a lexical error).
type token struct {
	s    string
	line int
	bol  bool // the first token of its line
}

// lexer streams the tokens of PTX text: it keeps no list of them, so that
// reading costs no memory per token. It counts the nesting of braces and
// refuses more than MaxDepth. A lexer is a small value: copying it gives a
// second reader of the same text from the same place (lookahead).
type lexer struct {
	src    string
	pos    int
	line   int
	bol    bool
	depth  int   // braces open after the last token returned
	strict bool  // refuse bytes that are no PTX, unterminated comments and strings
	err    error // the first lexical error; the text ends there
}

func newLexer(src string, strict bool) lexer {
	return lexer{src: src, line: 1, bol: true, strict: strict}
}

// isWord reports characters of PTX identifiers, directives, opcodes with
// their modifiers (ld.global.u32), special registers (%tid.x) and numbers
// (0f3F800000, 7.8).
func isWord(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c == '_' || c == '$' || c == '%' || c == '.'
}

func (l *lexer) fail(format string, args ...any) token {
	if l.err == nil {
		l.err = &Error{Line: l.line, Msg: fmt.Sprintf(format, args...)}
	}
	l.pos = len(l.src)
	return token{line: l.line}
}

// next returns the next token, or a token with s "" at the end of the text
// or once a lexical error is recorded in l.err.
func (l *lexer) next() token {
	if l.err != nil {
		return token{line: l.line}
	}
	src := l.src
	for l.pos < len(src) {
		c := src[l.pos]
		switch {
		case c == '\n':
			l.line++
			l.bol = true
			l.pos++
			continue
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			l.pos++
			continue
		case c == '/' && l.pos+1 < len(src) && src[l.pos+1] == '/':
			for l.pos < len(src) && src[l.pos] != '\n' {
				l.pos++
			}
			continue
		case c == '/' && l.pos+1 < len(src) && src[l.pos+1] == '*':
			start := l.line
			l.pos += 2
			for {
				if l.pos+1 >= len(src) {
					if l.strict {
						l.line = start
						return l.fail("unterminated comment")
					}
					l.pos = len(src)
					break
				}
				if src[l.pos] == '*' && src[l.pos+1] == '/' {
					l.pos += 2
					break
				}
				if src[l.pos] == '\n' {
					l.line++
					l.bol = true
				}
				l.pos++
			}
			continue
		}
		t := token{line: l.line, bol: l.bol}
		l.bol = false
		i := l.pos
		j := i + 1
		switch {
		case isWord(c):
			for j < len(src) && isWord(src[j]) {
				j++
			}
		case c == '"':
			for j < len(src) && src[j] != '"' && src[j] != '\n' {
				if src[j] == '\\' && j+1 < len(src) && src[j+1] != '\n' {
					j++
				}
				j++
			}
			if j >= len(src) || src[j] != '"' {
				if l.strict {
					return l.fail("unterminated string")
				}
			} else {
				j++
			}
		case c == '{':
			if l.depth >= MaxDepth {
				l.err = limitf(l.line, "braces nested deeper than %d", MaxDepth)
				l.pos = len(src)
				return token{line: l.line}
			}
			l.depth++
		case c == '}':
			if l.depth > 0 {
				l.depth--
			}
		case c > ' ' && c < 0x7f: // punctuation, one character a token
		default:
			if l.strict {
				return l.fail("byte %#02x is not PTX", c)
			}
		}
		t.s = src[i:j]
		l.pos = j
		return t
	}
	return token{line: l.line}
}
