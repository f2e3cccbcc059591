package worker

import (
	"errors"
	"fmt"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/stream"
)

// maxMappings bounds the IPC mappings a worker keeps: past it, the oldest
// is closed (a buffer the parent freed is never used again; one still in
// use is mapped again on its next call).
const maxMappings = 256

// Env is what a registered function gets in the worker: the worker's
// driver, its device's primary context and a stream of its own. The worker
// owns all of them; the function must not close them. After the function
// returns, the worker synchronizes the context (cuCtxSynchronize), so the
// work the function queued is complete, and its writes to the parent's
// buffers visible, when the call returns to the parent; a sticky fault
// found then fails the call as Faulted.
type Env struct {
	drv   *driver.Driver
	ctx   *driver.Context
	s     *stream.Stream
	err   error // why the worker has no driver
	pid   int
	maps  map[driver.IPCHandle]*memory.Buffer[byte]
	order []driver.IPCHandle // mapped handles, oldest first
	evs   map[driver.IPCHandle]*stream.Event
	calls []interface{ Close() error } // what Open opened for the call in progress
}

// Driver returns the worker's driver, or why it did not open (a real
// worker opens the machine's driver with gpu.Load; the fake's, its
// spawned process).
func (e *Env) Driver() (*driver.Driver, error) {
	if e == nil || e.calls == nil {
		return nil, fmt.Errorf("worker.Env.Driver: nil Env: %w", driver.ErrInvalidInput)
	}
	if e.err != nil {
		return nil, e.err
	}
	return e.drv, nil
}

// Context returns the primary context of the worker's device, which the
// worker owns.
func (e *Env) Context() (*driver.Context, error) {
	if _, err := e.Driver(); err != nil {
		return nil, err
	}
	return e.ctx, nil
}

// Stream returns the worker's own stream (non-blocking) in Context; the
// worker owns it.
func (e *Env) Stream() (*stream.Stream, error) {
	if _, err := e.Driver(); err != nil {
		return nil, err
	}
	return e.s, nil
}

// Process returns the worker's process id (for a worker of the fake, its
// serial number), as CallError.Worker names it.
func (e *Env) Process() int {
	if e == nil {
		return 0
	}
	return e.pid
}

// openEnv makes the worker's Env over drv (or its error) on the device
// whose UUID is uuid.
func openEnv(drv *driver.Driver, err error, uuid string, pid int) *Env {
	e := &Env{pid: pid, maps: map[driver.IPCHandle]*memory.Buffer[byte]{}, evs: map[driver.IPCHandle]*stream.Event{}, calls: []interface{ Close() error }{}}
	if err != nil {
		e.err = fmt.Errorf("worker: the worker's driver did not open: %w", err)
		return e
	}
	e.drv = drv
	if e.err = e.openDevice(uuid); e.err != nil {
		e.err = fmt.Errorf("worker: device %s in the worker: %w", uuid, e.err)
	}
	return e
}

func (e *Env) openDevice(uuid string) error {
	n, err := e.drv.DeviceCount()
	if err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		dev, err := e.drv.Device(i)
		if err != nil {
			return err
		}
		if u, err := dev.UUID(); err != nil || u != uuid {
			continue
		}
		ctx, err := dev.PrimaryContext()
		if err != nil {
			return err
		}
		s, err := stream.New(ctx, stream.Options{Flags: stream.NonBlocking})
		if err != nil {
			return errors.Join(err, ctx.Close())
		}
		e.ctx, e.s = ctx, s
		return nil
	}
	return fmt.Errorf("no device of that UUID among the worker's %d: %w", n, driver.ErrInvalidDevice)
}

// mapping returns the worker's mapping of the allocation h (of size
// bytes), mapping it on first use.
func (e *Env) mapping(h driver.IPCHandle, size uint64) (*memory.Buffer[byte], error) {
	if e.err != nil {
		return nil, e.err
	}
	if m := e.maps[h]; m != nil {
		return m, nil
	}
	if len(e.order) >= maxMappings {
		old := e.order[0]
		e.order = e.order[1:]
		if m := e.maps[old]; m != nil {
			delete(e.maps, old)
			m.Close()
		}
	}
	m, err := memory.OpenIPC[byte](e.ctx, h, int(size))
	if err != nil {
		return nil, err
	}
	e.maps[h] = m
	e.order = append(e.order, h)
	return m, nil
}

// waitEvent waits for the parent's IPC event h: the parent's work before
// it is complete when the function starts, for host-side copies as for
// the worker's streams.
func (e *Env) waitEvent(h driver.IPCHandle) error {
	if e.err != nil {
		return e.err
	}
	ev := e.evs[h]
	if ev == nil {
		var err error
		if ev, err = stream.OpenIPCEvent(e.ctx, h); err != nil {
			return err
		}
		e.evs[h] = ev
	}
	return ev.Synchronize()
}

// endCall closes what Open opened for the call.
func (e *Env) endCall() {
	for i, c := range e.calls {
		c.Close()
		e.calls[i] = nil
	}
	e.calls = e.calls[:0]
}

// close releases everything the worker holds, at a clean exit.
func (e *Env) close() {
	e.endCall()
	for h, m := range e.maps {
		m.Close()
		delete(e.maps, h)
	}
	for h, ev := range e.evs {
		ev.Close()
		delete(e.evs, h)
	}
	if e.s != nil {
		e.s.Close()
	}
	if e.ctx != nil {
		e.ctx.Close()
	}
}
