package ptxexec

// cudaGraphSetConditional(cudaGraphConditionalHandle handle, unsigned int
// value), which CUDA C's conditional graph nodes compile to: PTX declares
// it (.extern .func cudaGraphSetConditional(.param .b64, .param .b32)) and
// calls it (call.uni), and the driver resolves it at module load. The
// interpreter hands the call to the launch's memory when it implements
// ConditionSetter (the fake does, for kernels of a graph); anywhere else,
// or for a handle the setter refuses, the thread faults with an illegal
// address, as a kernel outside a graph does on a GPU.

// builtinSetConditional is the builtin kind of cudaGraphSetConditional.
const builtinSetConditional = 100

func init() {
	builtins["cudaGraphSetConditional"] = struct {
		kind   int
		params []int
		rets   []int
	}{builtinSetConditional, []int{8, 4}, nil}
}

// ConditionSetter is implemented by a launch's Memory that can set the
// conditions of conditional graph nodes: SetConditional sets the value of
// handle for the graph the kernel runs in, and reports false when the
// kernel runs in no graph or handle is none of its graph's.
type ConditionSetter interface {
	SetConditional(handle uint64, value uint32) bool
}

// setConditional runs a call of cudaGraphSetConditional; it returns false
// when the thread stops.
func (m *machine) setConditional(t *thread, in *inst, args [][]byte) bool {
	handle := loadLE(args[0], 8)
	value := uint32(loadLE(args[1], 4))
	if cs, ok := m.l.Mem.(ConditionSetter); ok && cs.SetConditional(handle, value) {
		return true
	}
	m.fail(t, in, CodeIllegalAddress, handle, "cudaGraphSetConditional: the kernel runs in no graph, or the handle is none of its graph's")
	return false
}
