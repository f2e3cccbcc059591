package ptxexec

// Values read only right after they are written. A slot that one
// instruction i writes and that every instruction reading it reads after
// i in straight-line code (no branch, barrier, ret or exit between them,
// no branch target after i up to the reader) is read by a thread only
// right after that thread has run i: a group of threads that runs i then
// runs on to the reader without a stop (runBlock switches groups only at
// branches, barriers and exits, and merges them only at targets and after
// those), so every thread that reads the slot there has just written it
// in the same run of i, and no other run of i comes in between. What the
// slot holds in the threads that did not run i this time is never read:
// a form need not be written to their lanes (affineProgram.local), and
// a pure instruction may compute their lanes too (blockProgram.localDst,
// runGroup).

// straightReads returns, for each slot written by exactly one
// instruction (writes[s] == 1, written's count), whether every read of it
// follows that instruction in straight-line code as above, the writer not
// reading it itself; false for every other slot.
func straightReads(code []inst, writes []int) []bool {
	only := make([]bool, len(writes))
	writer := make([]int, len(writes))
	target := make([]bool, len(code)+1)
	for i := range code {
		in := &code[i]
		for _, s := range written(in) {
			if s >= 0 && int(s) < len(writes) && writes[s] == 1 {
				only[s], writer[s] = true, i
			}
		}
		if t := int(in.imm); in.op == opBra && t >= 0 && t <= len(code) {
			target[t] = true
		}
	}
	straight := func(i, j int) bool {
		for k := i + 1; k <= j; k++ {
			if target[k] {
				return false
			}
			switch code[k].op {
			case opBra, opBar, opRet, opExit:
				if k < j {
					return false
				}
			}
		}
		return true
	}
	for j := range code {
		in := &code[j]
		ops := operands(in)
		for _, s := range append(ops[:], in.guard) {
			if s < 0 || int(s) >= len(only) || !only[s] {
				continue
			}
			if i := writer[s]; j == i {
				if s == in.a || s == in.b || s == in.c || s == in.guard {
					only[s] = false // it reads its own old value (maybe)
				}
			} else {
				only[s] = j > i && straight(i, j)
			}
		}
	}
	return only
}
