package ptx

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// allocated returns the bytes f allocates (runtime.MemStats.TotalAlloc
// around it: everything allocated, garbage included).
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

const memHeader = ".version 8.4\n.target sm_90\n.address_size 64\n"

// repeat returns head, n copies of unit, then tail.
func repeat(head, unit string, n int, tail string) string {
	var sb strings.Builder
	sb.Grow(len(head) + len(unit)*n + len(tail))
	sb.WriteString(head)
	for i := 0; i < n; i++ {
		sb.WriteString(unit)
	}
	sb.WriteString(tail)
	return sb.String()
}

// numbered returns head, then format filled with 0..n-1, then tail.
func numbered(head, format string, n int, tail string) string {
	var sb strings.Builder
	sb.WriteString(head)
	for i := 0; i < n; i++ {
		fmt.Fprintf(&sb, format, i)
	}
	sb.WriteString(tail)
	return sb.String()
}

// hostile are inputs built to make a parser allocate: each is a few MB.
func hostile() map[string]string {
	body := memHeader + ".visible .entry k(.param .u64 k_param_0)\n{\n"
	var longLine strings.Builder
	longLine.WriteString(body)
	for i := 0; i < 4000; i++ {
		longLine.WriteString("\tmov.b32 %r1, ")
		for j := 0; j < MaxOperands-1; j++ {
			longLine.WriteString("%r2, ")
		}
		longLine.WriteString("%r3;")
	}
	longLine.WriteString("\n}\n")
	return map[string]string{
		// The case: a million nested scopes (refused at MaxDepth).
		"deep nesting": repeat(body, "{", 1<<20, strings.Repeat("}", 1<<20)+"}\n"),
		// A million empty scopes side by side, and inside each other to
		// just under the limit.
		"many scopes":          repeat(body, "{ }\n", 1<<20, "}\n"),
		"nesting to the limit": repeat(body, "{", MaxDepth-1, strings.Repeat("}", MaxDepth-1)+"}\n"),
		// Registers: the largest ranges, declaration after declaration,
		// and long lists of names.
		"register ranges": numbered(body, "\t.reg .b32 %%r%d<65536>;\n", 1<<17, "}\n"),
		"register names":  numbered(body+"\t.reg .b32 ", "%%r%d, ", 1<<18, "%x;\n}\n"),
		// Parameters: entries with the most parameters the space takes.
		"many params": repeat(memHeader, numbered(".visible .entry k(", ".param .b64 p%d, ", 4000, ".param .u32 n)\n{\n\tret;\n}\n"), 40, ""),
		// Labels, one after another, and branches to them.
		"many labels":   numbered(body, "$L__BB0_%d:\n", 1<<18, "\tret;\n}\n"),
		"many branches": numbered(body, "\t@%%p1 bra $L__BB0_%d;\n", 1<<17, "}\n"),
		// Long lines: one instruction with the most operands, 4000 times
		// on one line; a long comment; a long name.
		"long operand line": longLine.String(),
		"long comment":      memHeader + "// " + strings.Repeat("x", 4<<20) + "\n",
		"long name":         memHeader + ".visible .entry k" + strings.Repeat("x", 4<<20) + "()\n{\n\tret;\n}\n",
		// Many small instructions, as compilers write them.
		"many instructions": repeat(body, "\tadd.s32 %r1, %r2, %r3;\n\tld.global.u32 %r4, [%rd1+4];\n\t@%p1 bra $L__BB0_1;\n\tret;\n", 1<<16, "}\n"),
		// An initialiser of one byte for a variable of a gigabyte, and
		// very many initialised variables.
		"huge initialised variable": memHeader + ".global .align 1 .b8 big[1073741823] = {1};\n",
		"many variables":            numbered(memHeader, ".global .align 4 .u32 v%d[4] = {1, 2, 3, 4};\n", 1<<16, ""),
		// Vector operands and call lists.
		"vector operands": repeat(body, "\tst.global.v4.f32 [%rd1], {%f1, %f2, %f3, %f4};\n\tcall.uni (%r1), f, (%r2, %r3);\n", 1<<15, "}\n"),
	}
}

// TestParserMemoryBounded: on each hostile input, Parse and Read allocate
// at most 20 times the input's size (plus AllocSlack), and deep nesting is
// refused with a typed error naming its line (project issue 21: 4 MB of
// PTX with a million nested scopes took 1.7 GB).
func TestParserMemoryBounded(t *testing.T) {
	for name, src := range hostile() {
		t.Run(name, func(t *testing.T) {
			limit := uint64(20*len(src) + AllocSlack)
			var err error
			n := allocated(func() { _, err = Read(src) })
			assert.LessOrEqual(t, n, limit, "Read allocated %d bytes for %d bytes of PTX (%.1fx)", n, len(src), float64(n)/float64(len(src)))
			if name == "deep nesting" {
				var pe *Error
				require.ErrorAs(t, err, &pe)
				assert.ErrorIs(t, err, ErrLimit)
				assert.Equal(t, 6, pe.Line, "the line of the brace past the limit")
				assert.Contains(t, err.Error(), "nested deeper than 256")
			} else {
				require.NoError(t, err)
			}
			t.Logf("Read: %.2fx of %d bytes", float64(n)/float64(len(src)), len(src))
			n = allocated(func() { _, _ = Parse(src) })
			t.Logf("Parse: %.2fx", float64(n)/float64(len(src)))
			assert.LessOrEqual(t, n, limit, "Parse allocated %d bytes for %d bytes of PTX (%.1fx)", n, len(src), float64(n)/float64(len(src)))
		})
	}
}

// checkAlloc fails t when n bytes allocated for src exceed the parser's
// bound on any input (MaxAllocRatio).
func checkAlloc(t *testing.T, what string, n uint64, src string) {
	t.Helper()
	if limit := uint64(MaxAllocRatio*len(src) + AllocSlack); n > limit {
		t.Fatalf("%s allocated %d bytes for %d bytes of text (%.1fx), more than %d", what, n, len(src), float64(n)/float64(len(src)), limit)
	}
}

// TestParseDepthLimit: nesting up to MaxDepth reads, one more is refused,
// in bodies, initialisers and signatures alike.
func TestParseDepthLimit(t *testing.T) {
	body := memHeader + ".visible .entry k()\n{\n"
	ok := body + strings.Repeat("{", MaxDepth-1) + strings.Repeat("}", MaxDepth-1) + "}\n"
	m, err := ParseModule(ok)
	require.NoError(t, err)
	assert.Empty(t, m.Funcs[0].Body)

	for name, src := range map[string]string{
		"body":        body + strings.Repeat("{", MaxDepth) + strings.Repeat("}", MaxDepth) + "}\n",
		"initialiser": memHeader + ".global .u32 x[1] = " + strings.Repeat("{", MaxDepth+1) + "1" + strings.Repeat("}", MaxDepth+1) + ";\n",
	} {
		_, err := ParseModule(src)
		var pe *Error
		require.ErrorAs(t, err, &pe, name)
		assert.True(t, errors.Is(err, ErrLimit), name)
		_, err = Read(src)
		assert.ErrorIs(t, err, ErrLimit, name)
		_, err = Parse(src)
		assert.ErrorIs(t, err, ErrLimit, name)
	}
}

// TestReadUnsupported: Read keeps reading past what it cannot hold in the
// syntax tree and says what it was; ParseModule refuses it.
func TestReadUnsupported(t *testing.T) {
	for name, c := range map[string]struct{ src, want string }{
		"vector registers":  {memHeader + ".visible .entry k()\n{\n\t.reg .v4 .b32 %r;\n\tret;\n}\n", "line 6: vector registers"},
		"texref param":      {memHeader + ".visible .entry k(.param .texref t)\n{\n\tret;\n}\n", "opaque parameter type .texref"},
		"register param":    {memHeader + ".func f(.reg .b32 x)\n{\n\tret;\n}\n.visible .entry k()\n{\n\tret;\n}\n", "expected .param"},
		"symbol init":       {memHeader + ".global .u64 p = q;\n.visible .entry k()\n{\n\tret;\n}\n", "unsupported initialiser"},
		"unknown directive": {memHeader + ".alias a, b;\n.visible .entry k()\n{\n\tret;\n}\n", "unsupported \".alias\""},
	} {
		m, err := Read(c.src)
		require.NoError(t, err, name)
		require.Error(t, m.Unsupported, name)
		assert.Contains(t, m.Unsupported.Error(), c.want, name)
		var entries []string
		for _, f := range m.Funcs {
			if f.Entry {
				entries = append(entries, f.Name)
			}
		}
		assert.Equal(t, []string{"k"}, entries, name)
		_, err = ParseModule(c.src)
		assert.EqualError(t, err, m.Unsupported.Error(), name)
	}
}
