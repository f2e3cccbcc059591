package module

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/memory"
)

// Buffer is a lookalike of memory.Buffer in another package.
type Buffer[T any] struct{ p uintptr }

func (b *Buffer[T]) Ptr() uintptr { return b.p }

// checkBufferOf checks that a launch reads b, through bufferOf, as b's own
// methods do.
func checkBufferOf[T any](t *testing.T, b *memory.Buffer[T]) {
	t.Helper()
	typ := reflect.TypeOf(b)
	require.Equal(t, argBuffer, kindOf(typ).kind, "%s", typ)
	assert.True(t, sameFields(typ.Elem(), bufferType), "%s has the layout of %s", typ.Elem(), bufferType)
	got := bufferOf(b)
	assert.Equal(t, b.Ptr(), got.Ptr(), "%s", typ)
	assert.Equal(t, b.Closed(), got.Closed(), "%s", typ)
	assert.Same(t, b.Context(), got.Context(), "%s", typ)
}

func TestBufferOf(t *testing.T) {
	drv := fake.New(fake.Devices(1))
	dev, err := drv.Device(0)
	require.NoError(t, err)
	ctx, err := dev.PrimaryContext()
	require.NoError(t, err)
	defer ctx.Close()

	f32, err := memory.Alloc[float32](ctx, 64)
	require.NoError(t, err)
	defer f32.Close()
	c128, err := memory.Alloc[complex128](ctx, 8)
	require.NoError(t, err)
	defer c128.Close()
	type rec struct {
		A [3]float64
		B int8
	}
	r, err := memory.Alloc[rec](ctx, 4)
	require.NoError(t, err)
	defer r.Close()
	freed, err := memory.Alloc[int16](ctx, 4)
	require.NoError(t, err)
	require.NoError(t, freed.Close())

	view := func(v *memory.Buffer[float32], err error) *memory.Buffer[float32] {
		t.Helper()
		require.NoError(t, err)
		return v
	}
	checkBufferOf(t, f32)
	checkBufferOf(t, view(f32.Slice(3, 9)))
	vb, err := view(f32.Slice(3, 9)).Bytes()
	require.NoError(t, err)
	checkBufferOf(t, vb)
	checkBufferOf(t, view(f32.Slice(5, 5))) // empty: open, no address
	checkBufferOf(t, c128)
	cv, err := c128.Slice(1, 2)
	require.NoError(t, err)
	checkBufferOf(t, cv)
	rv, err := r.Slice(1, 3)
	require.NoError(t, err)
	checkBufferOf(t, rv)
	checkBufferOf(t, freed)
	checkBufferOf(t, &memory.Buffer[uint64]{}) // not made by memory: no address
	assert.Nil(t, bufferOf((*memory.Buffer[float64])(nil)))

	// Lookalikes and other types are not buffers.
	for _, v := range []any{&Buffer[float32]{}, Buffer[float32]{}, memory.Buffer[float32]{}, &[]float32{}, (**memory.Buffer[float32])(nil)} {
		assert.NotEqual(t, argBuffer, kindOf(reflect.TypeOf(v)).kind, "%T", v)
	}
	assert.Contains(t, kindOf(reflect.TypeOf(&Buffer[float32]{})).why, "uintptr(x.Ptr())")

	// A buffer whose fields differed from Buffer[byte]'s would be refused.
	assert.False(t, sameFields(reflect.TypeFor[Buffer[float32]](), bufferType))
}
