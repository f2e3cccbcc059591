package ptxexec

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const setCondPTX = `
.version 6.0
.target sm_50
.address_size 64
.extern .func cudaGraphSetConditional (.param .b64 h, .param .b32 v);
.visible .entry set_to(.param .u64 h, .param .u32 v)
{
	.reg .b32 %r<2>;
	.reg .b64 %rd<2>;
	ld.param.u64 %rd1, [h];
	ld.param.u32 %r1, [v];
	{
	.param .b64 param0;
	st.param.b64 [param0+0], %rd1;
	.param .b32 param1;
	st.param.b32 [param1+0], %r1;
	call.uni cudaGraphSetConditional, (param0, param1);
	}
	ret;
}
`

// condMem is test memory that is also a ConditionSetter with one handle.
type condMem struct {
	*testMem
	handle uint64
	value  uint32
	calls  int
}

func (m *condMem) SetConditional(h uint64, v uint32) bool {
	m.calls++
	if h != m.handle {
		return false
	}
	m.value = v
	return true
}

// cudaGraphSetConditional reaches the launch's ConditionSetter; with no
// setter, or a handle it refuses, the kernel faults with an illegal
// address.
func TestSetConditional(t *testing.T) {
	p, err := Compile(setCondPTX)
	require.NoError(t, err)
	k := p.Kernels["set_to"]
	require.NotNil(t, k)
	launch := func(mem Memory, h uint64, v uint32) error {
		return k.Run(&Launch{Grid: [3]uint32{1, 1, 1}, Block: [3]uint32{1, 1, 1}, Params: params(t, k, h, v), Mem: mem})
	}

	m := &condMem{testMem: newMem(), handle: 0x1234}
	require.NoError(t, launch(m, 0x1234, 7))
	assert.Equal(t, uint32(7), m.value)
	assert.Equal(t, 1, m.calls)

	err = launch(m, 0x999, 1)
	var f *Fault
	require.ErrorAs(t, err, &f, "a handle the setter refuses")
	assert.Equal(t, CodeIllegalAddress, f.Code)
	assert.Equal(t, uint32(7), m.value, "unchanged")

	err = launch(newMem(), 0x1234, 1)
	require.ErrorAs(t, err, &f, "no setter: the kernel runs in no graph")
	assert.Equal(t, CodeIllegalAddress, f.Code)
	assert.Contains(t, f.Msg, "cudaGraphSetConditional")
}
