package link

// Core is what the room needs of the fake's core. Its methods take the
// core's locks themselves (the room holds none).
type Core interface {
	// Enter is the prologue of an entry point: the symbol exists in the
	// configured driver version, FailNth, cuInit called, no sticky fault.
	Enter(op string) error
	// Current is nil when the calling thread has a current context, else
	// the driver's error for its absence.
	Current() error
	// ModuleLoadData is cuModuleLoadData in the current context.
	ModuleLoadData(image []byte) (uintptr, error)
	// LoadError is what the PTX interpreter last refused to load, with its
	// line (nil for nothing); a load that it refused changes it.
	LoadError() error
	// Kernels names the kernels of module h, sorted (none for an unknown h).
	Kernels(h uintptr) []string
}

// Room is one fake backend's linker and JIT logs. It is safe for
// concurrent use.
type Room struct{ core Core }

// New returns the room of a backend whose core is core.
func New(core Core) *Room { return &Room{core} }

// enter is Core.Enter, named so that the fake's entry-point check
// (TestEntryPointsMatchSources) finds each entry point this room counts.
func (r *Room) enter(op string) error { return r.core.Enter(op) }
