package link

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
)

// core is a stub of the fake's core: it records the entry points entered,
// fails the one named by fail, and loads every image as module 1 unless
// refuse is set.
type core struct {
	entered []string
	fail    string
	current error
	refuse  error
	loadErr error

	ctx      uintptr             // the current context (library instances)
	modules  map[uintptr]uintptr // loaded module -> its context
	loads    int                 // modules loaded by Instance
	handle   uintptr
	unloaded []uintptr
}

func (c *core) Enter(op string) error {
	c.entered = append(c.entered, op)
	if op == c.fail {
		return driver.ErrUnknown
	}
	return nil
}

func (c *core) Current() error { return c.current }

func (c *core) ModuleLoadData(image []byte) (uintptr, error) {
	if c.refuse != nil {
		c.loadErr = errors.New("line 3: no such instruction")
		return 0, c.refuse
	}
	return 1, nil
}

func (c *core) LoadError() error { return c.loadErr }

func (c *core) Kernels(h uintptr) []string {
	if h != 1 {
		return nil
	}
	return []string{"a", "b"}
}

func entry(name string) []byte {
	return []byte(".version 7.8\n.target sm_90\n.address_size 64\n.visible .entry " + name + "()\n{\n\tret;\n}\n")
}

// The room over its core alone: a link enters each of the linker's entry
// points once per call (AddData per input), in the driver's order, and
// stops at the first that fails; with no current context it links nothing.
func TestLinkOverItsCore(t *testing.T) {
	c := &core{}
	r := New(c)
	in := []backend.LinkInput{{Type: backend.JITInputPTX, Name: "a.ptx", Data: entry("a")}, {Type: backend.JITInputPTX, Name: "b.ptx", Data: entry("b")}}
	image, log, err := r.Link(in, true)
	require.NoError(t, err)
	assert.Equal(t, []string{"cuLinkCreate", "cuLinkAddData", "cuLinkAddData", "cuLinkComplete", "cuLinkDestroy"}, c.entered)
	assert.Contains(t, string(image), ".entry a()")
	assert.Contains(t, string(image), ".entry b()")
	assert.Contains(t, log.Info, `"b.ptx"`)

	c = &core{fail: "cuLinkComplete"}
	_, _, err = New(c).Link(in, false)
	assert.ErrorIs(t, err, driver.ErrUnknown)

	c = &core{current: driver.ErrInvalidContext}
	_, _, err = New(c).Link(in, false)
	assert.ErrorIs(t, err, driver.ErrInvalidContext)
	assert.Equal(t, []string{"cuLinkCreate"}, c.entered, "no input is added without a context")
}

// ModuleLoadDataEx's logs come from the core's answers: the kernels of the
// loaded module, and what the interpreter refused in an image it did not
// load.
func TestJITLogsOverItsCore(t *testing.T) {
	c := &core{}
	h, log, err := New(c).ModuleLoadDataEx(entry("a"), true)
	require.NoError(t, err)
	assert.Equal(t, uintptr(1), h)
	assert.Equal(t, "fake ptxas info: Compiling entry function 'a'\nfake ptxas info: Compiling entry function 'b'", log.Info)

	c = &core{refuse: driver.ErrInvalidPTX}
	_, log, err = New(c).ModuleLoadDataEx(entry("a"), true)
	assert.ErrorIs(t, err, driver.ErrInvalidPTX)
	assert.Contains(t, log.Error, "fake ptxas error: line 3: no such instruction")
	assert.Equal(t, []string{"cuModuleLoadDataEx"}, c.entered)
}

func (c *core) ReadLibrary(image []byte) (Image, []string, error) {
	if c.refuse != nil {
		return nil, nil, c.refuse
	}
	return string(image), []string{"a", "b"}, nil
}

func (c *core) Instance(img Image, at uintptr, loaded func(ctx uintptr) uintptr) (uintptr, uintptr, error) {
	ctx := c.ctx
	if at != 0 {
		ctx = at // any context is live in the stub
	} else if c.current != nil {
		return 0, 0, c.current
	}
	if m := loaded(ctx); m != 0 && c.modules[m] == ctx {
		return ctx, m, nil
	}
	c.loads++
	m := c.NewHandle()
	if c.modules == nil {
		c.modules = map[uintptr]uintptr{}
	}
	c.modules[m] = ctx
	return ctx, m, nil
}

func (c *core) Unload(mods map[uintptr]uintptr) {
	for ctx, m := range mods {
		if c.modules[m] == ctx {
			delete(c.modules, m)
			c.unloaded = append(c.unloaded, m)
		}
	}
}

func (c *core) Function(mod uintptr, name string) (uintptr, error) {
	if _, ok := c.modules[mod]; !ok || (name != "a" && name != "b") {
		return 0, driver.ErrNotFound
	}
	return mod + 1, nil
}

func (c *core) Global(mod uintptr, name string) (uintptr, uintptr, error) {
	return 0, 0, driver.ErrNotFound
}

func (c *core) KernelAttribute(img Image, name string, attr backend.FunctionAttribute) (int, error) {
	return len(name), nil
}

func (c *core) CheckDevice(ordinal int) error {
	if ordinal != 0 {
		return driver.ErrInvalidDevice
	}
	return nil
}

func (c *core) NewHandle() uintptr {
	c.handle += 0x40
	return c.handle
}

// A library over its core alone: loaded once, it gets one module per
// context, the first time a call there asks for it, and again after the
// core unloaded that module (a primary context reset); its kernels have
// one handle per name; unloading it unloads every context's module and
// makes its handles invalid.
func TestLibraryOverItsCore(t *testing.T) {
	c := &core{ctx: 1}
	r := New(c)
	lib, err := r.LibraryLoadData(entry("a"))
	require.NoError(t, err)
	k, err := r.LibraryGetKernel(lib, "a")
	require.NoError(t, err)
	again, err := r.LibraryGetKernel(lib, "a")
	require.NoError(t, err)
	assert.Equal(t, k, again, "the same name, the same handle")
	_, err = r.LibraryGetKernel(lib, "c")
	assert.ErrorIs(t, err, driver.ErrNotFound)
	_, err = r.LibraryGetKernel(lib, "a\x00")
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
	assert.Zero(t, c.loads, "nothing loaded before a context asks")

	m1, err := r.LibraryGetModule(lib)
	require.NoError(t, err)
	f, err := r.KernelGetFunction(k)
	require.NoError(t, err)
	assert.Equal(t, m1+1, f, "the function of the context's module")
	assert.Equal(t, 1, c.loads, "one module per context")

	c.ctx = 2
	m2, err := r.LibraryGetModule(lib)
	require.NoError(t, err)
	assert.NotEqual(t, m1, m2)
	delete(c.modules, m2) // the core unloaded it (a reset)
	m3, err := r.LibraryGetModule(lib)
	require.NoError(t, err)
	assert.NotEqual(t, m2, m3, "loaded again")
	assert.Equal(t, 3, c.loads)

	n, err := r.KernelGetAttribute(0, k, 0)
	require.NoError(t, err)
	assert.Equal(t, 1, n, "the core's answer for kernel a")
	_, err = r.KernelGetAttribute(0, k, 1)
	assert.ErrorIs(t, err, driver.ErrInvalidDevice)

	c.current = driver.ErrInvalidContext
	_, err = r.LibraryGetModule(lib)
	assert.ErrorIs(t, err, driver.ErrInvalidContext)
	c.current = nil

	require.NoError(t, r.LibraryUnload(lib))
	assert.ElementsMatch(t, []uintptr{m1, m3}, c.unloaded, "every context's module")
	assert.ErrorIs(t, r.LibraryUnload(lib), driver.ErrInvalidHandle)
	_, err = r.KernelGetFunction(k)
	assert.ErrorIs(t, err, driver.ErrInvalidHandle)
	_, err = r.KernelGetAttribute(0, k, 0)
	assert.ErrorIs(t, err, driver.ErrInvalidHandle)

	c.refuse = driver.ErrInvalidImage
	_, err = r.LibraryLoadData(entry("a"))
	assert.ErrorIs(t, err, driver.ErrInvalidImage)
	_, err = r.LibraryLoadData(nil)
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
}

// A CUkernel resolved for a graph node: the function of the library's
// module in the context named (the current one for 0), loaded there first
// if need be; no handle of a live kernel is ErrInvalidValue; and no entry
// point is entered, the graph's own call has.
func TestKernelFunctionInOverItsCore(t *testing.T) {
	c := &core{ctx: 1}
	r := New(c)
	lib, err := r.LibraryLoadData(entry("a"))
	require.NoError(t, err)
	k, err := r.LibraryGetKernel(lib, "a")
	require.NoError(t, err)
	c.entered = nil

	f1, err := r.KernelFunctionIn(k, 0)
	require.NoError(t, err)
	f7, err := r.KernelFunctionIn(k, 7)
	require.NoError(t, err)
	assert.NotEqual(t, f1, f7, "each context's own module")
	assert.Equal(t, uintptr(7), c.modules[f7-1], "loaded in the context named")
	again, err := r.KernelFunctionIn(k, 7)
	require.NoError(t, err)
	assert.Equal(t, f7, again)
	assert.Equal(t, 2, c.loads)
	assert.Empty(t, c.entered)

	_, err = r.KernelFunctionIn(lib, 0)
	assert.ErrorIs(t, err, driver.ErrInvalidValue, "a library is no kernel")
	c.current = driver.ErrInvalidContext
	_, err = r.KernelFunctionIn(k, 0)
	assert.ErrorIs(t, err, driver.ErrInvalidContext, "no current context")
	c.current = nil
	require.NoError(t, r.LibraryUnload(lib))
	_, err = r.KernelFunctionIn(k, 0)
	assert.ErrorIs(t, err, driver.ErrInvalidValue, "the kernel of an unloaded library")
}
