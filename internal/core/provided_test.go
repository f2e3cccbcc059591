package core

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver/backend"
)

// widgetProvider is an optional backend interface, as backend.FFTProvider.
type widgetProvider interface{ Widget() (int, error) }

type widgetAPI struct {
	backend.API
	err error
}

func (a widgetAPI) Widget() (int, error) { return 7, a.err }

func TestProvided(t *testing.T) {
	c := NewContext(widgetAPI{}, 1, 0, "context 0x1", nil)
	w, err := Provided(t.Name(), c, "Widgets", widgetProvider.Widget)
	require.NoError(t, err)
	assert.Equal(t, 7, w)

	failing := errors.New("libwidget.so: not found")
	_, err = Provided("pkg.New", NewContext(widgetAPI{err: failing}, 1, 0, "", nil), "Widgets", widgetProvider.Widget)
	assert.ErrorIs(t, err, failing)
	assert.EqualError(t, err, "pkg.New: libwidget.so: not found")

	_, err = Provided("pkg.New", NewContext(nil, 1, 0, "", nil), "Widgets", widgetProvider.Widget)
	assert.ErrorIs(t, err, errors.ErrUnsupported)
	assert.EqualError(t, err, "pkg.New: this backend has no Widgets (core.widgetProvider): unsupported operation")
}

func TestOpenQueue(t *testing.T) {
	type stream struct{ QueueLink }
	_, err := OpenQueue[*stream]("pkg.F", nil)
	assert.ErrorIs(t, err, backend.ErrInvalidValue)
	assert.EqualError(t, err, "pkg.F: nil or zero stream: "+backend.ErrInvalidValue.Error())
	_, err = OpenQueue("pkg.F", &stream{})
	assert.ErrorIs(t, err, backend.ErrInvalidValue, "a zero stream")
}
