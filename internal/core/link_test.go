package core

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver/backend"
)

// The public types as the public packages declare them: each embeds its
// link under an unexported name.
type (
	contextLink = ContextLink
	publicCtx   struct{ contextLink }

	queueLink    = QueueLink
	publicStream struct {
		queueLink
		q Queue
	}

	kernelNodeLink = KernelNodeLink[int, string]
	publicFunc     struct{ kernelNodeLink }

	nvrtcLink    = NVRTCLink
	publicNVRTC  struct{ nvrtcLink }
	stubCompiler struct{ backend.NVRTC }
)

// The links give the state of a linked value, and nil for a nil pointer and
// for a zero value, never a panic.
func TestLinks(t *testing.T) {
	c := NewContext(nil, 0x10, 0, "ctx", nil)
	assert.Same(t, c, ContextOf(&publicCtx{LinkContext(c)}))
	assert.Nil(t, ContextOf((*publicCtx)(nil)))
	assert.Nil(t, ContextOf(&publicCtx{}))
	got, err := Of("op", &publicCtx{LinkContext(c)})
	require.NoError(t, err)
	assert.Same(t, c, got)
	for _, p := range []*publicCtx{nil, {}} {
		_, err := Of("stream.New", p)
		require.ErrorIs(t, err, backend.ErrInvalidValue)
		assert.Equal(t, "stream.New: nil context: invalid argument (refused by the library, not by the driver)", err.Error())
	}

	s := &publicStream{}
	s.queueLink = LinkQueue(&s.q)
	assert.Same(t, &s.q, QueueOf(s))
	assert.Nil(t, QueueOf((*publicStream)(nil)))
	assert.Nil(t, QueueOf(&publicStream{}))

	want := errors.New("refused")
	modHold := &Hold{}
	f := &publicFunc{LinkKernelNode(func(cfg int, args string) (backend.KernelNodeParams, *Hold, error) {
		if args == "" {
			return backend.KernelNodeParams{}, nil, want
		}
		return backend.KernelNodeParams{SharedMem: uint32(cfg)}, modHold, nil
	})}
	p, h, err := KernelNode(f, 7, "args")
	require.NoError(t, err)
	assert.Equal(t, uint32(7), p.SharedMem)
	assert.Same(t, modHold, h, "the module's hold comes with the parameters")
	_, _, err = KernelNode(f, 7, "")
	assert.Same(t, want, err)
	for _, f := range []*publicFunc{nil, {}} {
		_, _, err := KernelNode(f, 1, "x")
		require.ErrorIs(t, err, backend.ErrInvalidValue)
	}

	nv := stubCompiler{}
	made := NewNVRTC[*publicNVRTC](nv)
	require.NotNil(t, made)
	assert.Equal(t, backend.NVRTC(nv), NVRTCOf(made))
	assert.NotSame(t, made, NewNVRTC[*publicNVRTC](nv), "each call makes a new value")
	assert.Nil(t, NVRTCOf((*publicNVRTC)(nil)))
	assert.Nil(t, NVRTCOf(&publicNVRTC{}))
}
