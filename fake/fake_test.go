package fake_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/fake"
)

// Of finds the fake only under a Driver that New made; the nil *Fake it
// returns otherwise answers every method without panicking.
func TestOfOtherDriver(t *testing.T) {
	drv, err := driver.New(fake.NewBackend())
	require.NoError(t, err)
	f := fake.Of(drv)
	assert.Nil(t, f)
	assert.Nil(t, f.Leaks())
	assert.Nil(t, f.Calls())
	assert.NoError(t, f.KernelFault())
	assert.NoError(t, f.LoadError())
	assert.Error(t, f.RegisterKernel("k", func() {}))
	_, err = f.Compiler()
	assert.Error(t, err)
	assert.Nil(t, f.Backend())
	assert.NotNil(t, fake.Of(fake.New()), "a Driver New made")
}
