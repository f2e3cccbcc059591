package ptxexec

import (
	"errors"
	"testing"

	"github.com/nocgo/cuda/internal/ptx"
)

// FuzzCompileRun: Compile never panics on any text; what it accepts runs
// one small launch without panicking, ending in nil or a *Fault. Kernels
// that loop are cut short by the fuzz time limit, so seeds avoid them.
func FuzzCompileRun(f *testing.F) {
	f.Add(snippet("add.s32 %w3, %w0, %w1;" + out32))
	f.Add(snippet("shfl.sync.idx.b32 %w3, %w4, 5, 31, -1;" + out32))
	f.Add(snippet("st.shared.u32 [cnt], 0;\n\tbar.sync 0;\n\tatom.shared.add.u32 %w5, [cnt], 1;" + out32))
	f.Add(snippet("ld.global.u32 %w3, [%x0];" + out32))
	f.Add(header + ".global .align 4 .u32 g[4] = {1,2,3,4};\n.visible .entry k()\n{\n\t.reg .b32 %r<2>;\n\tld.global.u32 %r1, [g+12];\n\tret;\n}\n")
	f.Fuzz(func(t *testing.T, src string) {
		p, err := Compile(src)
		if err != nil {
			var le *LoadError
			var pe *ptx.Error
			if !errors.As(err, &le) && !errors.As(err, &pe) {
				t.Fatalf("error %T: %v", err, err)
			}
			return
		}
		for _, g := range p.Globals {
			if g.Size > 1<<20 {
				return // valid, but too large to place in a fuzz run
			}
		}
		mem := newMem()
		mem.bind(p)
		for _, k := range p.Kernels {
			if hasBackwardBranch(k.fn) {
				continue // may loop for ever, as on a GPU
			}
			params := make([]byte, k.ParamSize)
			err := k.Run(&Launch{Grid: [3]uint32{2, 1, 1}, Block: [3]uint32{33, 1, 1}, Params: params, Mem: mem, DynShared: 64})
			if err != nil {
				var f *Fault
				if !errors.As(err, &f) {
					t.Fatalf("run error %T: %v", err, err)
				}
			}
		}
	})
}

// hasBackwardBranch reports a branch to an earlier instruction (a loop)
// or a call (recursion) in f.
func hasBackwardBranch(f *function) bool {
	for pc, in := range f.code {
		if in.op == opBra && int(in.imm) <= pc || in.op == opCall {
			return true
		}
	}
	return false
}
