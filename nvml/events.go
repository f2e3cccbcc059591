package nvml

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
)

// EventType is a bit mask of nvmlEventType values.
type EventType uint64

// The event types (nvml.h, nvmlEventType*).
const (
	// EventSingleBitECC: a corrected (single-bit) ECC error.
	EventSingleBitECC EventType = 0x1
	// EventDoubleBitECC: an uncorrected (double-bit) ECC error.
	EventDoubleBitECC EventType = 0x2
	// EventPState: the performance state changed.
	EventPState EventType = 0x4
	// EventXid: a critical Xid error; Event.Xid says which (NVIDIA's Xid
	// catalog: 13 graphics engine exception, 31 GPU memory page fault, 48
	// double-bit ECC, 79 fallen off the bus, ...).
	EventXid EventType = 0x8
	// EventClock: a clock changed.
	EventClock EventType = 0x10
)

// String returns "Xid|Clock" and the like.
func (t EventType) String() string {
	var parts []string
	for _, n := range []struct {
		t    EventType
		name string
	}{{EventSingleBitECC, "SingleBitECC"}, {EventDoubleBitECC, "DoubleBitECC"}, {EventPState, "PState"}, {EventXid, "Xid"}, {EventClock, "Clock"}} {
		if t&n.t != 0 {
			parts = append(parts, n.name)
			t &^= n.t
		}
	}
	if t != 0 || len(parts) == 0 {
		parts = append(parts, fmt.Sprintf("%#x", uint64(t)))
	}
	return strings.Join(parts, "|")
}

// Event is one event of an EventSet.
type Event struct {
	Device *Device
	Type   EventType
	// Xid is the Xid of an EventXid event (nvmlEventData_t.eventData), 0
	// for other types.
	Xid uint64
	// GPUInstanceID and ComputeInstanceID place the event on a MIG device;
	// -1 for a whole GPU.
	GPUInstanceID, ComputeInstanceID int
}

// EventSet receives the events of the devices registered on it
// (nvmlEventSet_t). Made by Library.NewEventSet, owned: Close frees it (as
// does its Library's Close). It is safe for concurrent use; several
// goroutines may wait on one set, each event going to one of them.
type EventSet struct {
	l *Library
	h uintptr

	mu     sync.RWMutex // read-held by calls on h; Close takes it
	closed bool
}

// NewEventSet makes an event set (nvmlEventSetCreate, NVML 2.285).
func (l *Library) NewEventSet() (*EventSet, error) {
	const op = "nvml.Library.NewEventSet"
	if err := l.enter(op); err != nil {
		return nil, err
	}
	defer l.leave()
	h, err := l.api.EventSetCreate()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	s := &EventSet{l: l, h: h}
	l.setsMu.Lock()
	if l.sets == nil {
		l.sets = map[*EventSet]bool{}
	}
	l.sets[s] = true
	l.setsMu.Unlock()
	return s, nil
}

// enter read-holds s and its Library for one call on s's handle.
func (s *EventSet) enter(op string) error {
	if s == nil || s.l == nil {
		return fmt.Errorf("%s: nil event set: %w", op, driver.ErrInvalidInput)
	}
	if err := s.l.enter(op); err != nil {
		return err
	}
	s.mu.RLock()
	if s.closed {
		s.mu.RUnlock()
		s.l.leave()
		return fmt.Errorf("%s: %w", op, ErrClosed)
	}
	return nil
}

func (s *EventSet) leave() {
	s.mu.RUnlock()
	s.l.leave()
}

// Register adds d's events of the given types to the set
// (nvmlDeviceRegisterEvents, NVML 2.285). Types the device does not report
// (see SupportedEvents) fail with ErrNotSupported and register nothing.
// Only events that happen after Register are received.
func (s *EventSet) Register(d *Device, types EventType) error {
	const op = "nvml.EventSet.Register"
	if d == nil || d.l == nil {
		return fmt.Errorf("%s: nil device: %w", op, driver.ErrInvalidInput)
	}
	if s != nil && d.l != s.l {
		return fmt.Errorf("%s: the device is of another Library: %w", op, driver.ErrInvalidInput)
	}
	if types == 0 {
		return fmt.Errorf("%s: no event types: %w", op, driver.ErrInvalidInput)
	}
	if err := s.enter(op); err != nil {
		return err
	}
	defer s.leave()
	if err := s.l.api.DeviceRegisterEvents(d.h, uint64(types), s.h); err != nil {
		return fmt.Errorf("%s: %s: %w", op, d.describeLocked(), err)
	}
	return nil
}

// SupportedEvents returns the event types the device reports
// (nvmlDeviceGetSupportedEventTypes, NVML 2.285).
func (d *Device) SupportedEvents() (EventType, error) {
	t, err := query(d, "nvml.Device.SupportedEvents", backend.NVML.DeviceSupportedEvents)
	return EventType(t), err
}

// waitSlice is the longest one nvmlEventSetWait_v2 call of Wait blocks,
// so that Wait sees its context end, and a Close waits, at most this long.
const waitSlice = 100 * time.Millisecond

// Wait returns the next event of the set, waiting until one comes or ctx
// is done (then it returns ctx's error) (nvmlEventSetWait_v2, NVML 11.450).
func (s *EventSet) Wait(ctx context.Context) (Event, error) {
	const op = "nvml.EventSet.Wait"
	if ctx == nil {
		return Event{}, fmt.Errorf("%s: nil context: %w", op, driver.ErrInvalidInput)
	}
	for {
		if err := ctx.Err(); err != nil {
			return Event{}, fmt.Errorf("%s: %w", op, err)
		}
		slice := waitSlice
		if dl, ok := ctx.Deadline(); ok {
			slice = min(slice, max(time.Until(dl), time.Millisecond))
		}
		if err := s.enter(op); err != nil {
			return Event{}, err
		}
		ms := uint32((slice + time.Millisecond - 1) / time.Millisecond) // rounded up: the slice ends at or after the deadline
		ev, err := s.l.api.EventSetWait(s.h, ms)
		if err == nil {
			dev := s.l.deviceOf(ev.Device) // a whole GPU where NVML cannot say (a lost one)
			s.leave()
			e := Event{Device: dev, Type: EventType(ev.Type), GPUInstanceID: instanceID(ev.GPUInstanceID), ComputeInstanceID: instanceID(ev.ComputeInstanceID)}
			if e.Type == EventXid {
				e.Xid = ev.Data
			}
			return e, nil
		}
		s.leave()
		if !errors.Is(err, ErrTimeout) {
			return Event{}, fmt.Errorf("%s: %w", op, err)
		}
	}
}

// Close frees the set (nvmlEventSetFree, NVML 2.285) once the calls on it
// in flight have returned; a Wait in flight returns ErrClosed within
// 100 ms. A second Close, or one after the Library's Close, returns nil.
func (s *EventSet) Close() error {
	const op = "nvml.EventSet.Close"
	if s == nil || s.l == nil {
		return fmt.Errorf("%s: nil event set: %w", op, driver.ErrInvalidInput)
	}
	if err := s.l.enter(op); err != nil {
		if errors.Is(err, ErrClosed) {
			return nil // freed by the Library's Close
		}
		return err
	}
	defer s.l.leave()
	return s.freeLocked(op)
}

// freeLocked frees the set (its Library held); it is Close's body and the
// Library's Close's for each set still open.
func (s *EventSet) freeLocked(op string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	if err := s.l.api.EventSetFree(s.h); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	s.closed = true
	s.l.setsMu.Lock()
	delete(s.l.sets, s)
	s.l.setsMu.Unlock()
	return nil
}
