package module_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/conformance/segscale"
	"github.com/nocgo/cuda/cudatest/fakekernels"
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/module"
)

// ltoBackend is the fake with a JIT linker: what a backend with
// nvJitLink looks like to module.Link.
type ltoBackend struct {
	fake.Backend
	linker *stubLinker
}

func (b ltoBackend) JITLinker() (backend.JITLinker, error) {
	if b.linker == nil {
		return nil, errors.New("no libnvJitLink here")
	}
	return b.linker, nil
}

// stubLinker records a link and answers with image, or err.
type stubLinker struct {
	options []string
	inputs  []backend.JITLinkInput
	image   []byte
	err     error
}

func (s *stubLinker) Link(options []string, inputs []backend.JITLinkInput) ([]byte, string, error) {
	s.options, s.inputs = options, inputs
	return s.image, "stub info", s.err
}

func (s *stubLinker) Version() (int, int, error) { return 13, 0, nil }

// A link with LTO-IR goes to nvJitLink where the backend has it: for the
// context's device, with -lto, and the CUBIN it returns is loaded.
func TestLinkLTOIRUsesNVJitLink(t *testing.T) {
	api := fake.NewBackend(append([]fake.Option{fake.PretendNVRTC()}, fakekernels.Options()...)...)
	ctx0, _ := setup(t, fakeDriverOf(t, api))
	ptx := compileSegscale(t, ctx0, module.Options{NoCache: true}).PTX()

	stub := &stubLinker{image: append([]byte("\x7fELF"), ptx...)} // the fake's CUBIN: PTX behind an ELF magic
	drv := fakeDriverOf(t, ltoBackend{Backend: api, linker: stub})
	ctx, s := setup(t, drv)
	m, err := module.Link(ctx,
		module.LinkInput{Name: "a.ltoir", Kind: module.LTOIR, Data: []byte("ir a")},
		module.LinkInput{Name: "b.ptx", Data: ptx})
	require.NoError(t, err)
	defer m.Close()
	assert.Equal(t, []string{"-arch=sm_90", "-lto"}, stub.options)
	require.Len(t, stub.inputs, 2)
	assert.Equal(t, backend.JITLinkLTOIR, stub.inputs[0].Kind)
	assert.Equal(t, backend.JITLinkPTX, stub.inputs[1].Kind)
	assert.Equal(t, "b.ptx", stub.inputs[1].Name)
	assert.Contains(t, m.JITLog(), "stub info")
	f, err := m.Function(segscale.Name)
	require.NoError(t, err)
	runSegscale(t, ctx, s, f, 40)

	stub.err = &backend.JITLinkError{Code: 5, Name: "NVJITLINK_ERROR_NVVM_COMPILE", Op: "nvJitLinkComplete", Log: "undefined reference to twice"}
	_, err = module.Link(ctx, module.LinkInput{Name: "a.ltoir", Kind: module.LTOIR, Data: []byte("ir")})
	var le *module.LoadError
	require.ErrorAs(t, err, &le)
	assert.Equal(t, "nvJitLink", le.Call)
	assert.Contains(t, le.Log, "undefined reference to twice")
}

// Without nvJitLink, LTO-IR goes to the driver's cuLink, as before (which
// the fake refuses); inputs without LTO-IR never go to nvJitLink.
func TestLinkWithoutNVJitLink(t *testing.T) {
	api := fake.NewBackend(fake.PretendNVRTC())
	ctx, _ := setup(t, fakeDriverOf(t, ltoBackend{Backend: api}))
	_, err := module.Link(ctx, module.LinkInput{Name: "a.ltoir", Kind: module.LTOIR, Data: []byte("ir")})
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "nvJitLink")

	stub := &stubLinker{err: errors.New("must not be called")}
	ctx, _ = setup(t, fakeDriverOf(t, ltoBackend{Backend: fake.NewBackend(append([]fake.Option{fake.PretendNVRTC()}, fakekernels.Options()...)...), linker: stub}))
	ptx := compileSegscale(t, ctx, module.Options{NoCache: true}).PTX()
	m, err := module.Link(ctx, module.LinkInput{Name: "only.ptx", Data: ptx})
	require.NoError(t, err)
	m.Close()
	assert.Nil(t, stub.inputs, "no LTO-IR: cuLink")
}

// The pretend compiler makes no LTO-IR: CompileLTOIR says so with
// nvrtcGetLTOIR's error; bad input is refused first.
func TestCompileLTOIRRefusals(t *testing.T) {
	ctx, _ := setup(t, fakeDriver(fake.PretendNVRTC()))
	_, err := module.CompileLTOIR(ctx, segscale.Source, module.Options{})
	var nerr *backend.NVRTCError
	require.ErrorAs(t, err, &nerr)
	assert.Equal(t, "nvrtcGetLTOIR", nerr.Op)
	_, err = module.CompileLTOIR(nil, segscale.Source, module.Options{})
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
	_, err = module.CompileLTOIR(ctx, segscale.Source, module.Options{NameExpressions: []string{"k<int>"}})
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
	_, err = module.CompileLTOIR(ctx, segscale.Source, module.Options{Arch: "bogus"})
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
}

// fakeDriverOf opens a driver over api.
func fakeDriverOf(t *testing.T, api backend.API) *driver.Driver {
	t.Helper()
	drv, err := driver.New(api)
	require.NoError(t, err)
	return drv
}
