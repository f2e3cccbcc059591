package driver

import (
	"errors"
	"fmt"

	"github.com/nocgo/cuda/driver/backend"
)

// EnablePeerAccess lets work in c access the memory of peer, a context on
// another device (cuCtxEnablePeerAccess, with c current): device pointers
// of peer's allocations may then be used by c's kernels and copies. Access
// is one-way (enable it on peer too for the other direction) and lasts until
// DisablePeerAccess or the end of either context. Enabling it twice returns
// an error wrapping ErrPeerAccessAlreadyEnabled; a peer on the same device,
// or on a device c's cannot reach (Device.CanAccessPeer),
// ErrPeerAccessUnsupported. On a context shared
// with other libraries (the primary context), the access is theirs too.
func (c *Context) EnablePeerAccess(peer *Context) error {
	const op = "driver.Context.EnablePeerAccess"
	if c.state() == nil {
		return nilContext(op)
	}
	if peer.state() == nil {
		return fmt.Errorf("%s: %s: nil peer context: %w", op, c, ErrInvalidValue)
	}
	if peer.Driver() != c.Driver() {
		return fmt.Errorf("%s: %s: peer %s belongs to another *driver.Driver: %w", op, c, peer, ErrWrongContext)
	}
	if peer.Closed() {
		return fmt.Errorf("%s: %s: peer %s: %w", op, c, peer, ErrClosed)
	}
	err := c.state().Do(func(api backend.API) error {
		if r := api.CtxEnablePeerAccess(peer.Handle(), 0); r != nil {
			return fmt.Errorf("%s: cuCtxEnablePeerAccess(%s): %w", c, peer, r)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	return nil
}

// DisablePeerAccess undoes EnablePeerAccess (cuCtxDisablePeerAccess, with c
// current): an error wrapping ErrPeerAccessNotEnabled when it was not
// enabled. It needs a backend with backend.PeerAccessDisabler (an error
// wrapping errors.ErrUnsupported otherwise).
func (c *Context) DisablePeerAccess(peer *Context) error {
	const op = "driver.Context.DisablePeerAccess"
	if c.state() == nil {
		return nilContext(op)
	}
	if peer.state() == nil {
		return fmt.Errorf("%s: %s: nil peer context: %w", op, c, ErrInvalidValue)
	}
	if peer.Driver() != c.Driver() {
		return fmt.Errorf("%s: %s: peer %s belongs to another *driver.Driver: %w", op, c, peer, ErrWrongContext)
	}
	if peer.Closed() {
		return fmt.Errorf("%s: %s: peer %s: %w", op, c, peer, ErrClosed)
	}
	d, ok := c.state().API.(backend.PeerAccessDisabler)
	if !ok {
		return fmt.Errorf("%s: the backend cannot disable peer access (backend.PeerAccessDisabler): %w", op, errors.ErrUnsupported)
	}
	err := c.state().Do(func(backend.API) error {
		if r := d.CtxDisablePeerAccess(peer.Handle()); r != nil {
			return fmt.Errorf("%s: cuCtxDisablePeerAccess(%s): %w", c, peer, r)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	return nil
}
