package ptx

import (
	"strings"
	"testing"
)

// FuzzParsePTX: Parse never panics on any text, and every entry it returns
// has a layout a launch can use: sizes positive, alignments powers of two
// no larger than MaxAlign, offsets aligned, increasing without overlap and
// the whole within MaxParamSize; and what it allocates stays within
// MaxAllocRatio times the text. Hostile seeds are in
// testdata/fuzz/FuzzParsePTX.
func FuzzParsePTX(f *testing.F) {
	f.Add(mixed)
	f.Add(".visible .entry k(.param .align 8 .b8 k_param_0[16], .param .u16 k_param_1, .param .u64 .ptr .global .align 4 k_param_2) { ret; }")
	f.Add(".entry fill<float>(\n\t.param .u64 fill<float>_param_0\n)\n.extern .entry d(.param .u32 x);\x00")
	f.Add("{" + strings.Repeat("{ }", 1000) + "}")
	f.Fuzz(func(t *testing.T, src string) {
		var entries []Entry
		var err error
		checkAlloc(t, "Parse", allocated(func() { entries, err = Parse(src) }), src)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error %T %v is not an *Error", err, err)
			}
			if entries != nil {
				t.Fatalf("entries %v with error %v", entries, err)
			}
			return
		}
		for _, e := range entries {
			checkLayout(t, e)
		}
	})
}

func checkLayout(t *testing.T, e Entry) {
	t.Helper()
	end := 0
	for i, p := range e.Params {
		switch {
		case p.Size <= 0 || p.Size > MaxParamSize:
			t.Fatalf("entry %q param %d: size %d", e.Name, i, p.Size)
		case p.Align <= 0 || p.Align > MaxAlign || p.Align&(p.Align-1) != 0:
			t.Fatalf("entry %q param %d: align %d", e.Name, i, p.Align)
		case p.Offset < end || p.Offset%p.Align != 0:
			t.Fatalf("entry %q param %d: offset %d (previous end %d, align %d)", e.Name, i, p.Offset, end, p.Align)
		case p.Offset > MaxParamSize-p.Size:
			t.Fatalf("entry %q param %d: %d bytes at %d exceed %d", e.Name, i, p.Size, p.Offset, MaxParamSize)
		case p.Array < 0 || p.Array > 0 && p.Size%p.Array != 0:
			t.Fatalf("entry %q param %d: array %d of size %d", e.Name, i, p.Array, p.Size)
		}
		end = p.Offset + p.Size
	}
	if e.Size() != end || e.Size() < 0 || e.Size() > MaxParamSize {
		t.Fatalf("entry %q: size %d, end %d", e.Name, e.Size(), end)
	}
}

// FuzzParseModule: ParseModule never panics, returns a module or an
// *Error (never both), what it returns respects the parser's limits, and
// it allocates at most MaxAllocRatio times the text; Read agrees with it.
func FuzzParseModule(f *testing.F) {
	f.Add(fullModule)
	f.Add(mixed)
	f.Add(".version 7.8\n.target sm_90\n.address_size 64\n.global .u32 x[2][3] = {{1,2,3},{4,5,6}};")
	f.Add(".version 7.8\n.entry k() { @!%p1 bra L; L: call.uni (r), f, (a, b); st.v4.f32 [x+-4], {%f1,%f2,%f3,%f4}; }")
	f.Add(memHeader + ".entry k() {" + strings.Repeat("{", 300) + "}")
	f.Add(memHeader + ".entry k() {\n$L0: a;b;c; @%p x y,z|w,{a,{b}},(c);\n.reg .b32 %r<9>, %q;\n}")
	f.Fuzz(func(t *testing.T, src string) {
		var m *Module
		var err error
		checkAlloc(t, "ParseModule", allocated(func() { m, err = ParseModule(src) }), src)
		read, rerr := Read(src)
		if rerr != nil && err == nil || err == nil && read.Unsupported != nil {
			t.Fatalf("Read: %v, %v; ParseModule: %v", rerr, read, err)
		}
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error %T %v is not an *Error", err, err)
			}
			if m != nil {
				t.Fatalf("module with error %v", err)
			}
			return
		}
		for _, v := range m.Vars {
			if v.Size() < 0 || v.Size() > MaxVarSize || len(v.Init) > v.Size() {
				t.Fatalf("variable %s: size %d, %d initialiser bytes", v.Name, v.Size(), len(v.Init))
			}
		}
		for _, fn := range m.Funcs {
			for _, s := range fn.Body {
				if len(s.Args) > MaxOperands {
					t.Fatalf("%d operands", len(s.Args))
				}
			}
			for _, r := range fn.Regs {
				for _, c := range r.Count {
					if c < 0 || c > MaxRegs {
						t.Fatalf("register count %d", c)
					}
				}
			}
		}
	})
}
