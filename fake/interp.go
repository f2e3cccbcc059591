package fake

import (
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/fake/internal/ptxexec"
)

// The PTX interpreter in the fake: a module loaded from PTX text whose
// entries have no Go body runs them in package ptxexec, with CUDA's
// execution model (see that package's documentation for what it
// implements and refuses). A Go body registered with Kernel takes
// precedence for its entry.

// Workers makes launches of interpreted PTX run n blocks at once on
// parallel goroutines. The default, one, runs blocks one after another:
// deterministic and repeatable. With more, blocks that share memory
// other than through atomics race as they would on a GPU (and under the
// race detector); atomics on global memory stay atomic. Either way, once
// a block spins waiting for another block, the launch goes on as
// resident blocks taking turns on one goroutine (see package ptxexec).
func Workers(n int) Option {
	return func(c *config) { c.workers = n }
}

// KernelOutput sends what printf in interpreted kernels prints, and the
// message of a failed device-side assert, to w instead of os.Stdout (nil:
// nowhere).
func KernelOutput(w io.Writer) Option {
	return func(c *config) { c.output, c.outputSet = w, true }
}

// interpState is the Backend's record of why the interpreter refused a
// module or failed a launch, in more words than a CUDA error number.
type interpState struct {
	mu      sync.Mutex
	loadErr error // the last module the interpreter refused
	fault   error // the first interpreted launch that faulted
	// races, when set (by this package's tests), is told of every
	// interpreted launch's global accesses and in-kernel shared-memory
	// races (ptxexec.Launch.SharedRaces).
	races ptxexec.SharedRaceObserver
}

// LoadError returns why the last cuModuleLoadData the interpreter refused
// (CUDA_ERROR_INVALID_PTX) failed: the PTX line, the instruction and what
// is not supported. It is nil when no load was refused. The error wraps
// driver.ErrInvalidPTX.
func (b *fakeBackend) loadError() error {
	b.interp.mu.Lock()
	defer b.interp.mu.Unlock()
	return b.interp.loadErr
}

// KernelFault returns what the first faulting interpreted launch did: the
// PTX line, the instruction, the address and the thread. The driver
// reports only the number (CUDA_ERROR_ILLEGAL_ADDRESS,
// CUDA_ERROR_MISALIGNED_ADDRESS, CUDA_ERROR_LAUNCH_FAILED for a trap or a
// deadlock), sticky as on a GPU; the error wraps that driver.Result. It is
// nil while no interpreted launch failed.
func (b *fakeBackend) kernelFault() error {
	b.interp.mu.Lock()
	defer b.interp.mu.Unlock()
	return b.interp.fault
}

func (b *fakeBackend) noteLoadError(err error) error {
	e := fmt.Errorf("%w: %v", driver.ErrInvalidPTX, err)
	b.interp.mu.Lock()
	b.interp.loadErr = e
	b.interp.mu.Unlock()
	return driver.ErrInvalidPTX
}

// deviceMemory is the interpreter's view of the fake's allocations.
type deviceMemory struct{ b *fakeBackend }

// Lookup returns the allocation holding addr.
func (m deviceMemory) Lookup(addr uint64) (uint64, []byte, bool) {
	m.b.mu.RLock()
	defer m.b.mu.RUnlock()
	a := m.b.findLocked(uintptr(addr))
	if a == nil {
		return 0, nil, false
	}
	return uint64(a.base), a.data, true
}

// runPTX runs an interpreted kernel. A fault is recorded with its details
// and returned as its driver.Result.
func (b *fakeBackend) runPTX(x *ptxexec.Kernel, grid, block [3]uint32, sharedMem uint32, sms, resident int, args []byte, cooperative bool) error {
	var out io.Writer = os.Stdout
	if b.cfg.outputSet {
		out = b.cfg.output
	}
	rec := b.race.Recorder(x.Name)
	l := &ptxexec.Launch{Grid: grid, Block: block, DynShared: sharedMem, Params: args, Mem: deviceMemory{b}, SMs: sms, Resident: resident,
		Workers: b.cfg.workers, Printf: out, Cooperative: cooperative, Observe: raceObserve(rec)}
	// With the race detector on, in-kernel shared- and global-memory
	// races are checked too (raceObserver is a ptxexec.SharedRaceObserver
	// and GlobalRaceObserver).
	l.SharedRaces = l.Observe != nil && !b.cfg.streamRacesOnly
	l.GlobalRaces = l.SharedRaces
	if b.interp.races != nil {
		l.Observe, l.SharedRaces, l.GlobalRaces = b.interp.races, true, true
	}
	err := x.Run(l)
	rec.Flush()
	if err == nil {
		return nil
	}
	code := driver.ErrLaunchFailed
	if f, ok := err.(*ptxexec.Fault); ok {
		code = driver.Result(f.Code)
	}
	b.interp.mu.Lock()
	if b.interp.fault == nil {
		b.interp.fault = fmt.Errorf("%w: %v", code, err)
	}
	b.interp.mu.Unlock()
	return kernelFault{code, err}
}

// kernelFault is the error of a faulting interpreted launch, as the stream
// reports it: the driver's code (what errors.Is and errors.As find) with
// what the interpreter knows of the fault (the PTX line, the CUDA C file
// and line when the PTX has -lineinfo or -G line information, the
// instruction, the address, the block and thread), which a GPU does not
// say.
type kernelFault struct {
	code   driver.Result
	detail error
}

func (f kernelFault) Error() string { return fmt.Sprintf("%v (kernel fault: %v)", f.code, f.detail) }
func (f kernelFault) Unwrap() error { return f.code }

// checkInterpreted checks a launch of an interpreted kernel against what
// its PTX says: .maxntid / .reqntid bound the block, and static plus
// dynamic shared memory the device's opt-in limit (ErrInvalidValue). A
// kernel with a Go body passes.
func (k *kernel) checkInterpreted(block [3]uint32, sharedMem uint32, a map[driver.DeviceAttribute]int) error {
	x := k.interp
	if x == nil {
		return nil
	}
	if uint64(block[0])*uint64(block[1])*uint64(block[2]) > uint64(x.MaxThreads) ||
		x.StaticShared+int(sharedMem) > a[driver.AttrMaxSharedMemoryPerBlockOptin] {
		return driver.ErrInvalidValue
	}
	return nil
}

// ptxKernel is the kernel of an interpreted entry: its parameter layout
// from the PTX, no Go body.
func ptxKernel(x *ptxexec.Kernel) *kernel {
	k := &kernel{name: x.Name, lowered: x.Name, interp: x, size: uintptr(x.ParamSize)}
	for _, p := range x.Params {
		k.params = append(k.params, param{off: uintptr(p.Offset), size: uintptr(p.Size), align: uintptr(p.Align)})
	}
	return k
}
