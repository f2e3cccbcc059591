package conformance

import (
	"testing"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/memory"
)

// testPeerAccess checks Context.EnablePeerAccess and DisablePeerAccess on
// two devices that can reach each other, and their errors.
func testPeerAccess(t *testing.T, drv *driver.Driver) {
	a := streamContext(t, drv, 0)
	errorIs(t, a.EnablePeerAccess(nil), driver.ErrInvalidValue)
	n, err := drv.DeviceCount()
	must(t, err)
	if n < 2 {
		t.Skip("one device")
	}
	b := streamContext(t, drv, 1)
	ok, err := a.Device().CanAccessPeer(b.Device())
	must(t, err)
	if !ok {
		t.Skip("the devices cannot access each other")
	}
	if _, ok := raw(t, drv).(backend.PeerAccessDisabler); !ok {
		t.Skip("the backend cannot disable peer access")
	}
	errorIs(t, a.DisablePeerAccess(b), driver.ErrPeerAccessNotEnabled)
	must(t, a.EnablePeerAccess(b))
	defer a.DisablePeerAccess(b)
	errorIs(t, a.EnablePeerAccess(b), driver.ErrPeerAccessAlreadyEnabled)

	// With access enabled, a copy between the devices works.
	src, err := memory.Alloc[float32](b, 256)
	must(t, err)
	defer src.Close()
	dst, err := memory.Alloc[float32](a, 256)
	must(t, err)
	defer dst.Close()
	want := memIota(256, 3)
	must(t, memory.CopyToDevice(src, want))
	must(t, memory.CopyDtoD(dst, src))
	memSame(t, want, memRead(t, dst))

	must(t, a.DisablePeerAccess(b))
	errorIs(t, a.DisablePeerAccess(b), driver.ErrPeerAccessNotEnabled)
	// Same device: a second context of device 0.
	own := streamOwnContext(t, drv, 0)
	errorIs(t, a.EnablePeerAccess(own), driver.ErrPeerAccessUnsupported, "as the H200 answers")
}
