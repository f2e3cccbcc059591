package ptxexec

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Functions the CUDA runtime provides and PTX only declares: printf and
// assert.
const (
	builtinNone = iota
	builtinVprintf
	builtinAssert
)

// builtins maps a declared function to its builtin, with the parameter
// and result sizes its call must pass.
var builtins = map[string]struct {
	kind   int
	params []int
	rets   []int
}{
	"vprintf":      {builtinVprintf, []int{8, 8}, []int{4}},
	"__assertfail": {builtinAssert, []int{8, 8, 4, 8, 8}, nil},
}

// maxCString bounds the strings printf and assert read from memory.
const maxCString = 4096

// cstring reads the NUL-terminated string at the generic address addr.
func (m *machine) cstring(t *thread, in *inst, addr uint64) (string, bool) {
	var sb strings.Builder
	for i := uint64(0); i < maxCString; i++ {
		b := m.access(t, in, opLdGeneric, addr+i, 1)
		if b == nil {
			return "", false
		}
		if b[0] == 0 {
			return sb.String(), true
		}
		sb.WriteByte(b[0])
	}
	return sb.String(), true
}

// builtin runs a call of vprintf or __assertfail; args are the bytes of
// the call's arguments, ret where its result goes. It returns false when
// the thread stops.
func (m *machine) builtin(t *thread, in *inst, kind int, args [][]byte, ret [][]byte) bool {
	u64 := func(b []byte) uint64 { return loadLE(b, uint8(len(b))) }
	switch kind {
	case builtinSetConditional: // graph_conditional.go
		return m.setConditional(t, in, args)
	case builtinVprintf:
		format, ok := m.cstring(t, in, u64(args[0]))
		if !ok {
			return false
		}
		s, ok := m.cformat(t, in, format, u64(args[1]))
		if !ok {
			return false
		}
		n := len(s)
		if w := m.l.Printf; w != nil {
			if _, err := io.WriteString(w, s); err != nil {
				n = -1
			}
		}
		store(ret[0], 4, uint64(uint32(int32(n))))
		return true
	case builtinAssert:
		msg, ok1 := m.cstring(t, in, u64(args[0]))
		file, ok2 := m.cstring(t, in, u64(args[1]))
		fn, ok3 := m.cstring(t, in, u64(args[3]))
		if !ok1 || !ok2 || !ok3 {
			return false
		}
		line := u64(args[2])
		text := fmt.Sprintf("%s:%d: %s: block: [%d,%d,%d], thread: [%d,%d,%d] Assertion `%s` failed.",
			file, line, fn, m.block[0], m.block[1], m.block[2], t.idx[0], t.idx[1], t.idx[2], msg)
		if w := m.l.Printf; w != nil {
			io.WriteString(w, text+"\n")
		}
		m.fail(t, in, CodeAssert, 0, text)
		return false
	}
	return true
}

// cformat formats a C printf format with the arguments packed at the
// generic address argp (each aligned to its size, as CUDA's vprintf takes
// them: integers of int size or 8 bytes, doubles, pointers).
func (m *machine) cformat(t *thread, in *inst, format string, argp uint64) (string, bool) {
	var sb strings.Builder
	off := uint64(0)
	arg := func(size uint64) (uint64, bool) {
		off = (off + size - 1) &^ (size - 1)
		b := m.access(t, in, opLdGeneric, argp+off, size)
		if b == nil {
			return 0, false
		}
		off += size
		return loadLE(b, uint8(size)), true
	}
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' {
			sb.WriteByte(c)
			continue
		}
		start, j := i, i+1
		spec := "%"
		for j < len(format) && strings.IndexByte("-+ #0", format[j]) >= 0 {
			spec += string(format[j])
			j++
		}
		for _, part := range []string{"width", "precision"} {
			if part == "precision" {
				if j >= len(format) || format[j] != '.' {
					break
				}
				spec += "."
				j++
			}
			if j < len(format) && format[j] == '*' {
				v, ok := arg(4)
				if !ok {
					return "", false
				}
				spec += strconv.Itoa(int(int32(v)))
				j++
				continue
			}
			for j < len(format) && format[j] >= '0' && format[j] <= '9' {
				spec += string(format[j])
				j++
			}
		}
		long := false
		for j < len(format) && strings.IndexByte("hlLqjzt", format[j]) >= 0 {
			if format[j] != 'h' {
				long = true
			}
			j++
		}
		if j >= len(format) {
			sb.WriteString(format[i:])
			break
		}
		size := uint64(4)
		if long {
			size = 8
		}
		conv := format[j]
		i = j
		switch conv {
		case '%':
			sb.WriteByte('%')
		case 'd', 'i':
			v, ok := arg(size)
			if !ok {
				return "", false
			}
			n := int64(v)
			if size == 4 {
				n = int64(int32(v))
			}
			fmt.Fprintf(&sb, spec+"d", n)
		case 'u', 'x', 'X', 'o':
			v, ok := arg(size)
			if !ok {
				return "", false
			}
			verb := string(conv)
			if conv == 'u' {
				verb = "d"
			}
			fmt.Fprintf(&sb, spec+verb, v)
		case 'c':
			v, ok := arg(4)
			if !ok {
				return "", false
			}
			fmt.Fprintf(&sb, spec+"c", rune(byte(v)))
		case 's':
			p, ok := arg(8)
			if !ok {
				return "", false
			}
			s, ok := m.cstring(t, in, p)
			if !ok {
				return "", false
			}
			fmt.Fprintf(&sb, spec+"s", s)
		case 'p':
			p, ok := arg(8)
			if !ok {
				return "", false
			}
			fmt.Fprintf(&sb, "0x%x", p)
		case 'f', 'F', 'e', 'E', 'g', 'G', 'a', 'A':
			v, ok := arg(8)
			if !ok {
				return "", false
			}
			if !strings.Contains(spec, ".") && conv != 'a' && conv != 'A' {
				spec += ".6" // C's default precision
			}
			verb := map[byte]string{'f': "f", 'F': "f", 'e': "e", 'E': "E", 'g': "g", 'G': "G", 'a': "x", 'A': "X"}[conv]
			fmt.Fprintf(&sb, spec+verb, math.Float64frombits(v))
		default:
			sb.WriteString(format[start : j+1]) // unknown: as written
		}
	}
	return sb.String(), true
}
