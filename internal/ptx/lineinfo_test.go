package ptx

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLineInfo: .file names files by number, .loc gives the instructions
// after it their source line, a .loc with inlined_at leaves the caller's,
// and a body starts with none.
func TestLineInfo(t *testing.T) {
	src := `.version 7.8
.target sm_80
.address_size 64
.visible .entry k()
{
	.reg .b32 %r<3>;
	mov.u32 %r1, 1;
	.loc	1 12 5
	mov.u32 %r2, 2;
	.loc	2 300 9, function_name $L__info_string0, inlined_at 1 13 3
	add.u32 %r1, %r1, %r2;
	ret;
}
.visible .entry j()
{
	ret;
}
	.file	1 "/src/k.cu"
	.file	2 "/inc/helper.h", 1700000000, 1234
`
	m, err := ParseModule(src)
	require.NoError(t, err)
	assert.Equal(t, map[int32]string{1: "/src/k.cu", 2: "/inc/helper.h"}, m.Files)
	k := m.Funcs[0].Body
	require.Len(t, k, 4)
	assert.Equal(t, Loc{}, k[0].Loc, "before any .loc")
	assert.Equal(t, Loc{File: 1, Line: 12}, k[1].Loc)
	assert.Equal(t, Loc{File: 1, Line: 13}, k[2].Loc, "a line inlined from a header is the user's call")
	assert.Equal(t, Loc{}, m.Funcs[1].Body[0].Loc, "a new body starts with none")
}
