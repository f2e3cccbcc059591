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
