package fake

import (
	"slices"

	"github.com/nocgo/cuda/fake/internal/link"
)

// The JIT's logs and the linker are a room of their own (fake/internal/link):
// linkRoom, embedded in fakeBackend, whose methods are backend.Linker's
// Link and backend.ModuleJIT's ModuleLoadDataEx (see link.Room for what
// each does). It owns no state; linkCore gives it what it asks of the core.
type linkRoom = link.Room

// linkCore is the core as the link room sees it (link.Core).
type linkCore struct{ b *fakeBackend }

func (c linkCore) Enter(op string) error { return c.b.enter(op) }

func (c linkCore) Current() error {
	_, err := c.b.current()
	return err
}

func (c linkCore) ModuleLoadData(image []byte) (uintptr, error) { return c.b.ModuleLoadData(image) }

func (c linkCore) LoadError() error { return c.b.loadError() }

func (c linkCore) Kernels(h uintptr) []string {
	b := c.b
	b.mu.RLock()
	defer b.mu.RUnlock()
	m := b.modules[h]
	if m == nil {
		return nil
	}
	names := make([]string, 0, len(m.funcs))
	for name := range m.funcs {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}
