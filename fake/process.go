package fake

import (
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
)

// A fake "process": a Backend stands for one process (see NewBackend), and
// SpawnProcess stands up another one beside it, as a child process of the
// program would be, for package worker's isolated workers on a machine with
// no GPU. The spawned backend is built from the spawner's options (devices,
// compiler, driver version, interpreter settings, printf output) and Go
// kernel bodies, those registered late included, but not its FailNth rules
// or call counts, which are the spawner's own. It shares what processes of
// one machine share, the IPC namespace (ipc.go), and nothing else: its
// sticky fault poisons it alone, as a child's fault leaves its parent
// working on the H200.

var _ backend.ProcessSpawner = (*fakeBackend)(nil)

// process is a spawned fake backend with its exit. It embeds the backend,
// so that type assertions on it find every optional interface of the fake.
type process struct {
	*fakeBackend
}

// SpawnProcess is backend.ProcessSpawner: a new, uninitialised fake backend
// that stands for another process of this machine.
func (b *fakeBackend) SpawnProcess() (backend.Process, error) {
	cfg := b.cfg
	cfg.faults = nil
	cfg.kernels = nil
	child := newBackend(func(c *config) { *c = cfg })
	b.mu.RLock()
	for name, k := range b.kernels {
		child.kernels[name] = k
	}
	b.mu.RUnlock()
	return process{child}, nil
}

// Exit is backend.Process: the process ends, as on its exit the operating
// system frees what it held. Every later call fails with
// CUDA_ERROR_DEINITIALIZED (the few calls that survive a sticky fault
// aside); IPC handles it exported stop opening; memory that other processes
// mapped from it stays readable in their mappings.
func (p process) Exit() {
	b := p.fakeBackend
	gone := error(driver.ErrDeinitialized)
	b.poison.Store(&gone)
	b.compiler.Reset() // a room's, before the core's lock
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, a := range b.mem {
		b.unexportMemLocked(a)
	}
	for _, e := range b.events {
		b.unexportEventLocked(e)
	}
	b.mem = nil
	clear(b.ctxs)
	clear(b.stacks)
	clear(b.streams)
	clear(b.events)
	clear(b.modules)
	clear(b.funcs)
	b.pools.Reset()
	b.graphRoom.ResetGraphs()
}
