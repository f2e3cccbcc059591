package fake_test

import (
	"reflect"
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

// Every method of *Fake, called on a nil *Fake and on a Fake not made by
// the package, with zero arguments, returns without panicking: the sweep
// covers methods added later too.
func TestNilFakeEveryMethod(t *testing.T) {
	for _, f := range []*fake.Fake{nil, new(fake.Fake)} {
		v := reflect.ValueOf(f)
		for i := range v.NumMethod() {
			m := v.Type().Method(i)
			args := make([]reflect.Value, m.Type.NumIn()-1)
			for k := range args {
				args[k] = reflect.Zero(m.Type.In(k + 1))
			}
			func() {
				defer func() {
					if p := recover(); p != nil {
						t.Errorf("(%#v).%s panicked: %v", f, m.Name, p)
					}
				}()
				v.Method(i).Call(args)
			}()
		}
	}
	var f *fake.Fake
	assert.NoError(t, f.DeclareOrder(1, fake.HostOrder), "nothing to declare to")
	assert.Nil(t, f.Hazards())
	assert.Nil(t, f.TakeHazards())
	assert.Zero(t, f.CompilerOpens())
}
