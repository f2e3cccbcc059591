package nvml

import (
	"fmt"
	"time"

	"github.com/nocgo/cuda/driver/backend"
)

// The nvmlEventType bits the fake raises (nvml.h nvmlEventType*; go-nvml's
// EventType constants).
const (
	eventSingleBitECC = 0x1
	eventDoubleBitECC = 0x2
	eventPState       = 0x4
	eventXid          = 0x8
	eventClock        = 0x10
	supportedEvents   = eventSingleBitECC | eventDoubleBitECC | eventPState | eventXid | eventClock
)

// The Xids a sticky kernel fault raises (see the package doc).
const (
	xidGraphicsEngineException = 13
	xidMMUFault                = 31
)

// xidOf is the Xid the GPU reports for the sticky fault code.
func xidOf(code backend.Result) uint64 {
	if code == 700 { // CUDA_ERROR_ILLEGAL_ADDRESS
		return xidMMUFault
	}
	return xidGraphicsEngineException // illegal instruction, misaligned address, trap, launch failure
}

// eventSet is one nvmlEventSet_t.
type eventSet struct {
	regs   map[*device]uint64 // registered event types per device
	queue  []backend.NVMLEvent
	signal chan struct{} // has a token while queue is not empty
}

// EventSetCreate is nvmlEventSetCreate.
func (l *Lib) EventSetCreate() (uintptr, error) {
	if err := l.enter("nvmlEventSetCreate"); err != nil {
		return 0, err
	}
	defer l.mu.Unlock()
	l.next += 0x10
	l.sets[l.next] = &eventSet{regs: map[*device]uint64{}, signal: make(chan struct{}, 1)}
	return l.next, nil
}

// DeviceSupportedEvents is nvmlDeviceGetSupportedEventTypes.
func (l *Lib) DeviceSupportedEvents(h uintptr) (uint64, error) {
	if _, err := l.device("nvmlDeviceGetSupportedEventTypes", h); err != nil {
		return 0, err
	}
	l.mu.Unlock()
	return supportedEvents, nil
}

// DeviceRegisterEvents is nvmlDeviceRegisterEvents: types not supported are
// refused with NOT_SUPPORTED and register nothing.
func (l *Lib) DeviceRegisterEvents(h uintptr, types uint64, set uintptr) error {
	const op = "nvmlDeviceRegisterEvents"
	d, err := l.device(op, h)
	if err != nil {
		return err
	}
	defer l.mu.Unlock()
	s := l.sets[set]
	if s == nil {
		return nvmlErr(op, backend.NVMLInvalidArgument, fmt.Sprintf("event set %#x", set))
	}
	if types&^supportedEvents != 0 {
		return nvmlErr(op, backend.NVMLNotSupported, fmt.Sprintf("event types %#x", types&^supportedEvents))
	}
	l.noteFaultLocked() // a fault before registering is no event of this set
	s.regs[d] |= types
	return nil
}

// noteFaultLocked raises the Xid of a sticky fault first seen now, on the
// device of the stream that holds it, or, where no open stream does any
// more, on every device where the process has a context.
func (l *Lib) noteFaultLocked() {
	if l.fault != 0 {
		return
	}
	code, dev := l.core.StickyFault()
	if code == 0 {
		return
	}
	l.fault = code
	for _, d := range l.devs {
		if d.index == dev || dev < 0 && l.core.Usage(d.index).Contexts > 0 {
			l.raiseLocked(d, nil, eventXid, xidOf(code))
		}
	}
}

// raiseLocked queues an event of type t on every set registered for it on d.
func (l *Lib) raiseLocked(d *device, m *migDevice, t, data uint64) {
	ev := backend.NVMLEvent{Device: d.handle, Type: t, Data: data, GPUInstanceID: noInstance, ComputeInstanceID: noInstance}
	if m != nil {
		ev.Device, ev.GPUInstanceID, ev.ComputeInstanceID = m.handle, uint32(m.gi), uint32(m.ci)
	}
	for _, s := range l.sets {
		if s.regs[d]&t != 0 {
			s.queue = append(s.queue, ev)
			select {
			case s.signal <- struct{}{}:
			default:
			}
		}
	}
}

// faultPoll is how often a wait looks at the core for a sticky fault.
const faultPoll = 5 * time.Millisecond

// EventSetWait is nvmlEventSetWait_v2: the oldest event of the set, or
// TIMEOUT after timeoutMs.
func (l *Lib) EventSetWait(set uintptr, timeoutMs uint32) (backend.NVMLEvent, error) {
	const op = "nvmlEventSetWait"
	if err := l.enter(op); err != nil {
		return backend.NVMLEvent{}, err
	}
	s := l.sets[set]
	l.mu.Unlock()
	if s == nil {
		return backend.NVMLEvent{}, nvmlErr(op, backend.NVMLInvalidArgument, fmt.Sprintf("event set %#x", set))
	}
	deadline := time.NewTimer(time.Duration(timeoutMs) * time.Millisecond)
	defer deadline.Stop()
	tick := time.NewTicker(faultPoll)
	defer tick.Stop()
	for {
		l.mu.Lock()
		if l.sets[set] != s {
			l.mu.Unlock()
			return backend.NVMLEvent{}, nvmlErr(op, backend.NVMLInvalidArgument, "event set freed")
		}
		l.noteFaultLocked()
		if len(s.queue) > 0 {
			ev := s.queue[0]
			s.queue = s.queue[1:]
			if len(s.queue) > 0 {
				select {
				case s.signal <- struct{}{}:
				default:
				}
			}
			l.mu.Unlock()
			return ev, nil
		}
		l.mu.Unlock()
		select {
		case <-s.signal:
		case <-tick.C:
		case <-deadline.C:
			return backend.NVMLEvent{}, nvmlErr(op, backend.NVMLTimeout, "")
		}
	}
}

// EventSetFree is nvmlEventSetFree.
func (l *Lib) EventSetFree(set uintptr) error {
	const op = "nvmlEventSetFree"
	if err := l.enter(op); err != nil {
		return err
	}
	defer l.mu.Unlock()
	if l.sets[set] == nil {
		return nvmlErr(op, backend.NVMLInvalidArgument, fmt.Sprintf("event set %#x", set))
	}
	delete(l.sets, set)
	return nil
}
