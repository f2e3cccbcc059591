package nvrtc

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver/backend"
)

// core is a core as the room sees it: one Go body, "scale", of two
// parameters, and a FailNth rule on one entry point.
type core struct {
	fail   string // the entry point that fails
	handle uintptr
}

func (c *core) Fault(op string) error {
	if op == c.fail {
		return backend.Result(backend.NVRTCErrorCompilation)
	}
	return nil
}

func (c *core) Body(name string) (Body, bool) {
	if name != "scale" {
		return Body{}, false
	}
	return Body{Params: 2, Lowered: "scale"}, true
}

func (c *core) EntryParams(entry string) string {
	return fmt.Sprintf("\t.param .u64 %s_param_0,\n\t.param .f32 %s_param_1", entry, entry)
}
func (c *core) Alias(string, string) {}
func (c *core) NewHandle() uintptr   { c.handle += 0x40; return c.handle }
func (c *core) Site() fmt.Stringer   { return site("k_test.go:1 (TestX)") }

type site string

func (s site) String() string { return string(s) }

// The pretend compiler over its core alone: a kernel with a body compiles
// to PTX declaring the body's parameters; one without fails with the log
// naming it; a FailNth rule answers with its code as an nvrtcResult; a
// program not destroyed is a leak with its site.
func TestPretendCompilerOverItsCore(t *testing.T) {
	c := &core{}
	r := New(c, Choice{Set: true}) // the pretend compiler
	nv, err := r.NVRTC()
	require.NoError(t, err)
	assert.Equal(t, "nocgo/cuda fake", nv.Implementation())
	h, err := nv.CreateProgram(`__global__ void scale(float *p, float f) {}`, "k.cu", nil, nil)
	require.NoError(t, err)
	require.NoError(t, nv.Compile(h, []string{"-arch=sm_90"}))
	ptx, err := nv.PTX(h)
	require.NoError(t, err)
	assert.Contains(t, string(ptx), ".target sm_90")
	assert.Contains(t, string(ptx), ".visible .entry scale(\n\t.param .u64 scale_param_0,")

	bad, err := nv.CreateProgram(`__global__ void other(int *p) {}`, "o.cu", nil, nil)
	require.NoError(t, err)
	var nerr *backend.NVRTCError
	require.ErrorAs(t, nv.Compile(bad, nil), &nerr)
	assert.Equal(t, backend.NVRTCErrorCompilation, nerr.Code)
	log, err := nv.ProgramLog(bad)
	require.NoError(t, err)
	assert.Contains(t, log, `kernel "other" has no Go body`)

	c.fail = "nvrtcGetPTX"
	_, err = nv.PTX(h)
	require.ErrorAs(t, err, &nerr)
	assert.Equal(t, backend.NVRTCErrorCompilation, nerr.Code, "the rule's code, as an nvrtcResult")

	require.NoError(t, nv.DestroyProgram(h))
	assert.Equal(t, []Leak{{Handle: bad, Name: "o.cu", Site: "k_test.go:1 (TestX)"}}, r.Leaks())
	r.Reset()
	assert.Empty(t, r.Leaks())
	require.ErrorAs(t, nv.DestroyProgram(bad), &nerr)
	assert.Equal(t, 4, nerr.Code, "a reset room knows no program: NVRTC_ERROR_INVALID_PROGRAM")
}
