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
	assert.Equal(t, b.Err(), got.Err(), "%s", typ)
	assert.Same(t, b.Context(), got.Context(), "%s", typ)
}

func TestBufferOf(t *testing.T) {
	drv := fake.New(fake.Devices(1))
	dev, err := drv.Device(0)
	require.NoError(t, err)
	ctx, err := dev.PrimaryContext()
	require.NoError(t, err)
	defer ctx.Release()

	f32, err := memory.Alloc[float32](ctx, 64)
	require.NoError(t, err)
	defer f32.Free()
	c128, err := memory.Alloc[complex128](ctx, 8)
	require.NoError(t, err)
	defer c128.Free()
	type rec struct {
		A [3]float64
		B int8
	}
	r, err := memory.Alloc[rec](ctx, 4)
	require.NoError(t, err)
	defer r.Free()
	freed, err := memory.Alloc[int16](ctx, 4)
	require.NoError(t, err)
	require.NoError(t, freed.Free())

	checkBufferOf(t, f32)
	checkBufferOf(t, f32.Slice(3, 9))
	checkBufferOf(t, f32.Slice(3, 9).Bytes())
	checkBufferOf(t, f32.Slice(10, 100)) // broken: Err, no address
	checkBufferOf(t, c128)
	checkBufferOf(t, c128.Slice(1, 2))
	checkBufferOf(t, r.Slice(1, 3))
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
