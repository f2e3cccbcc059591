package ptx

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPlainRegisterNames: a register declared without "%" (as the inline
// assembly of cuda_fp16.h declares its scratch registers) is a register
// operand, also inside a vector; an undeclared name stays a symbol.
func TestPlainRegisterNames(t *testing.T) {
	src := memHeader + `.visible .entry k(.param .u64 p)
{
	.reg .f32 %f<2>;
	.reg .b32 %r<2>;
	{ .reg .f16 low;
	cvt.rn.f16.f32 low, %f1;
	mov.b32 %r1, {low, low};
	}
	bra done;
done:
	ret;
}
`
	m, err := ParseModule(src)
	require.NoError(t, err)
	body := m.Funcs[0].Body
	require.Len(t, body, 4)
	assert.Equal(t, OpReg, body[0].Args[0].Kind, "cvt's destination")
	assert.Equal(t, "low", body[0].Args[0].Name)
	vec := body[1].Args[1].Elems()
	require.Len(t, vec, 2)
	assert.Equal(t, OpReg, vec[0].Kind, "a vector's element")
	assert.Equal(t, OpReg, vec[1].Kind)
	assert.Equal(t, OpSym, body[2].Args[0].Kind, "a label is no register")
}
