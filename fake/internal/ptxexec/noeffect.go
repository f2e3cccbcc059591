package ptxexec

// Kernels with no effect. A kernel whose entry only computes in registers
// and returns (no memory access, call, barrier, warp collective, trap or
// backward branch: an empty __global__ function compiles to a lone ret)
// can do nothing a user could observe, on any block: no memory changes,
// nothing faults, nothing waits, every thread ends. Such a launch runs no
// block at all, so the largest grid (2^31-1 x 65535 x 65535 blocks) takes
// no time, as an empty kernel's launch takes well under a second on the
// H200.

// noEffect reports whether the kernel's entry is such a kernel.
func (k *Kernel) noEffect() bool {
	for pc, in := range k.fn.code {
		switch {
		case in.op < opLdGlobal: // arithmetic, moves, compares, cvt
		case in.op == opRet || in.op == opExit:
		case in.op == opBra && int(in.imm) > pc:
		default:
			return false
		}
	}
	return true
}
