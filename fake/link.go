package fake

import (
	"bytes"
	"slices"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/fake/internal/link"
	"github.com/nocgo/cuda/fake/internal/ptxexec"
	"github.com/nocgo/cuda/internal/core"
	"github.com/nocgo/cuda/internal/ptx"
)

// The linker, the JIT's logs and context-independent libraries (cuLibrary)
// are a room of their own (fake/internal/link): linkRoom, embedded in
// fakeBackend, whose methods are backend.Linker's, backend.ModuleJIT's and
// backend.Libraries' entry points (see link.Room for what each does). It
// owns the libraries under its own lock; linkCore gives it what it asks of
// the core: reading an image, and loading it as a module of the current
// context (an instance of the library there).
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

// libraryImage is a cuLibrary's image as the core read it (link.Image):
// what loadParsedLocked loads into each context, and what each kernel runs
// (its attributes before any context).
type libraryImage struct {
	arch    int
	cubin   bool
	mod     *ptx.Module // the image's syntax tree, shared by its modules
	entries []ptxEntry
	kernels map[string]*kernel
}

func (c linkCore) ReadLibrary(image []byte) (link.Image, []string, error) {
	b := c.b
	if bytes.HasPrefix(image, fatbinMagic) {
		if err := checkFatbin(image); err != nil {
			return nil, nil, err
		}
		if image = fatbinPTX(image); image == nil {
			return nil, nil, driver.ErrNoBinaryForGPU
		}
	}
	arch, _, cubin, mod, entries, err := parseImage(bytes.Clone(image))
	if err != nil {
		return nil, nil, err
	}
	prog, progErr := ptxexec.Decode(mod)
	img := &libraryImage{arch: arch, cubin: cubin, mod: mod, entries: entries, kernels: map[string]*kernel{}}
	names := make([]string, len(entries))
	b.mu.RLock()
	for i, e := range entries {
		k := b.kernelForEntryLocked(e.name)
		if k == nil && progErr == nil {
			if x := prog.Kernels[e.name]; x != nil {
				k = ptxKernel(x)
			}
		}
		img.kernels[e.name], names[i] = k, e.name
	}
	b.mu.RUnlock()
	for _, e := range entries {
		k := img.kernels[e.name]
		if k == nil && progErr != nil {
			return nil, nil, b.noteLoadError(progErr)
		}
		if k == nil || k.err != nil || len(k.params) != len(e.sizes) {
			return nil, nil, driver.ErrInvalidImage
		}
	}
	return img, names, nil
}

func (c linkCore) Instance(img link.Image, at uintptr, loaded func(ctx uintptr) uintptr) (uintptr, uintptr, error) {
	b, li := c.b, img.(*libraryImage)
	tid := core.ThreadID()
	b.mu.Lock()
	defer b.mu.Unlock()
	var ctx *context
	var err error
	if at == 0 {
		ctx, err = b.currentLocked(tid)
	} else {
		ctx, err = b.liveCtxLocked(at)
	}
	if err != nil {
		return 0, 0, err
	}
	if m := b.modules[loaded(ctx.h)]; m != nil && m.ctx == ctx {
		return ctx.h, m.h, nil
	}
	m, err := b.loadParsedLocked(ctx, li.arch, li.cubin, li.mod, li.entries)
	if err != nil {
		return 0, 0, err
	}
	return ctx.h, m.h, nil
}

func (c linkCore) Unload(mods map[uintptr]uintptr) {
	b := c.b
	b.mu.Lock()
	defer b.mu.Unlock()
	for ctx, mh := range mods {
		if m := b.modules[mh]; m != nil && m.ctx.h == ctx {
			b.unloadLocked(m)
			delete(b.modules, mh)
		}
	}
}

func (c linkCore) Function(mod uintptr, name string) (uintptr, error) {
	c.b.mu.RLock()
	defer c.b.mu.RUnlock()
	if m := c.b.modules[mod]; m != nil && m.funcs[name] != nil {
		return m.funcs[name].h, nil
	}
	return 0, driver.ErrNotFound
}

func (c linkCore) Global(mod uintptr, name string) (uintptr, uintptr, error) {
	c.b.mu.RLock()
	defer c.b.mu.RUnlock()
	if m := c.b.modules[mod]; m != nil {
		if g, ok := m.globals[name]; ok {
			return g.ptr, g.size, nil
		}
	}
	return 0, 0, driver.ErrNotFound
}

func (linkCore) KernelAttribute(img link.Image, name string, attr backend.FunctionAttribute) (int, error) {
	k := img.(*libraryImage).kernels[name]
	return funcAttribute(&function{name: name, k: k, maxDyn: defaultMaxDynamicShared, carveout: -1}, attr)
}

func (c linkCore) CheckDevice(ordinal int) error {
	_, err := c.b.dev(ordinal)
	return err
}

func (linkCore) NewHandle() uintptr { return newHandle() }
