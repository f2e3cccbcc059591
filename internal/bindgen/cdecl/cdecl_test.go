package cdecl

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseLine(t *testing.T) {
	l, err := ParseLine("Get cuGet(out CUcontext *pctx, const char* name, void* reserved=0, int arr[]) since=2000 hand // The note.")
	require.NoError(t, err)
	assert.Equal(t, &Line{Method: "Get", CName: "cuGet", Params: []Param{
		{CType: "CUcontext*", Name: "pctx", Out: true},
		{CType: "const char*", Name: "name"},
		{CType: "void*", Name: "reserved", Const: "0"},
		{CType: "int*", Name: "arr"},
	}, Options: []string{"since=2000", "hand"}, Note: "The note."}, l)

	l, err = ParseLine("- cuInit(void)")
	require.NoError(t, err)
	assert.Empty(t, l.Method)
	assert.Empty(t, l.Params)

	for line, want := range map[string]string{
		"Get cuGet":               "want Method cName(params)",
		"cuGet(int x)":            "want Method cName before",
		"get cuGet(int x)":        "no exported Go name",
		"Get cu-Get(int x)":       "no C name",
		"Get cuGet(x)":            "want C-type name",
		"Get cuGet(out int x)":    "is no pointer",
		"Get cuGet(out int* x=0)": "cannot be a constant",
		"Get cuGet(int 1x)":       `parameter name "1x"`,
	} {
		_, err := ParseLine(line)
		if assert.Error(t, err, line) {
			assert.Contains(t, err.Error(), want, line)
		}
	}
}

func TestComment(t *testing.T) {
	c := Comment(strings.Repeat("word ", 40))
	for _, line := range strings.Split(strings.TrimSuffix(c, "\n"), "\n") {
		assert.True(t, strings.HasPrefix(line, "// "), line)
		assert.LessOrEqual(t, len(line), 77)
	}
	assert.Equal(t, 40, strings.Count(c, "word"))
}
