package core

import (
	"errors"

	"github.com/nocgo/cuda/driver/backend"
)

// Create makes a library object in c (a cuBLAS handle, a cuRAND generator,
// a cuFFT plan): under a new hold of c and with c bound, newHandle makes
// it and setup, when not nil, configures it; when setup fails, the handle
// is destroyed (destroy's error joined to setup's), so that nothing made
// is dropped. On success the object owns the hold until its Close; on any
// failure (no hold could be taken, newHandle or setup failed) the hold is
// let go (see Drop) and the error returned.
func (c *Context) Create(newHandle func() (uintptr, error), setup, destroy func(h uintptr) error) (*Hold, uintptr, error) {
	hold, err := c.Hold()
	if err != nil {
		return nil, 0, err
	}
	var h uintptr
	err = hold.Do(func(backend.API) error {
		made, err := newHandle()
		if err != nil {
			return err
		}
		if setup != nil {
			if err := setup(made); err != nil {
				return errors.Join(err, destroy(made))
			}
		}
		h = made
		return nil
	})
	if err != nil {
		return nil, 0, hold.Drop(err)
	}
	return hold, h, nil
}
