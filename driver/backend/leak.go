package backend

import "fmt"

// LeakKind is the kind of driver object a Leak is.
type LeakKind string

// Kinds of leaked objects.
const (
	LeakPrimaryContext LeakKind = "primary context"
	LeakContext        LeakKind = "context"
	LeakStream         LeakKind = "stream"
	LeakEvent          LeakKind = "event"
	LeakModule         LeakKind = "module"
	LeakDeviceMemory   LeakKind = "device memory"
	LeakAsyncMemory    LeakKind = "stream-ordered device memory"
	LeakHostMemory     LeakKind = "pinned host memory"
	LeakIPCMapping     LeakKind = "IPC mapping"
	LeakProgram        LeakKind = "NVRTC program"
	LeakGraph          LeakKind = "graph"
	LeakGraphExec      LeakKind = "graph exec"
	LeakMemPool        LeakKind = "memory pool"
)

// Leak is one object a backend still holds that its user was to release.
// Fields that do not apply to the Kind are zero.
type Leak struct {
	Kind    LeakKind
	Handle  uintptr // the object's handle or address
	Context uintptr // the context it belongs to
	Device  int     // the device it lives on (contexts, device memory)
	Size    uintptr // bytes, for memory
	Refs    int     // references still retained, for a primary context
	Detail  string  // anything else worth saying, such as a program's name
	// Site is the Go call site that made the object, the first frame
	// outside the library ("foo_test.go:42 (TestX)"), where the backend
	// records it (the fake does); "" otherwise.
	Site string
}

// String describes the leak in one line, such as "stream 0x5a0040 in
// context 0x5a0000: not destroyed, made at foo_test.go:42 (TestX)".
func (l Leak) String() string {
	if l.Site == "" {
		return l.what()
	}
	return l.what() + ", made at " + l.Site
}

// what is String without the call site.
func (l Leak) what() string {
	switch l.Kind {
	case LeakPrimaryContext:
		return fmt.Sprintf("primary context %#x on device %d: %d references retained", l.Handle, l.Device, l.Refs)
	case LeakContext:
		return fmt.Sprintf("context %#x on device %d: not destroyed", l.Handle, l.Device)
	case LeakStream, LeakEvent, LeakGraphExec:
		return fmt.Sprintf("%s %#x in context %#x: not destroyed", l.Kind, l.Handle, l.Context)
	case LeakGraph:
		return fmt.Sprintf("graph %#x (%s): not destroyed", l.Handle, l.Detail)
	case LeakModule:
		return fmt.Sprintf("module %#x in context %#x: not unloaded", l.Handle, l.Context)
	case LeakDeviceMemory, LeakAsyncMemory:
		return fmt.Sprintf("%s %#x: %d bytes on device %d not freed", l.Kind, l.Handle, l.Size, l.Device)
	case LeakHostMemory:
		return fmt.Sprintf("pinned host memory %#x: %d bytes in context %#x not freed", l.Handle, l.Size, l.Context)
	case LeakIPCMapping:
		return fmt.Sprintf("IPC mapping %#x: %d bytes in context %#x not closed", l.Handle, l.Size, l.Context)
	case LeakMemPool:
		return fmt.Sprintf("memory pool %#x on device %d: not destroyed", l.Handle, l.Device)
	case LeakProgram:
		return fmt.Sprintf("NVRTC program %#x (%s): not destroyed", l.Handle, l.Detail)
	}
	s := fmt.Sprintf("%s %#x", l.Kind, l.Handle)
	if l.Detail != "" {
		s += ": " + l.Detail
	}
	return s
}
