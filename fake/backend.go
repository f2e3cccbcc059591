package fake

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"weak"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/fake/internal/graphs"
	"github.com/nocgo/cuda/fake/internal/nccl"
	"github.com/nocgo/cuda/fake/internal/nvrtc"
	"github.com/nocgo/cuda/fake/internal/pools"
	"github.com/nocgo/cuda/fake/internal/race"
	"github.com/nocgo/cuda/fake/internal/vmm"
	"github.com/nocgo/cuda/internal/abi"
)

// fakeBackend is the in-process fake CUDA driver: it implements backend.API
// and the optional interfaces listed in Backend with Go memory and Go kernel
// bodies. It is safe for concurrent use. It holds no operating-system
// resources but those of its virtual memory (a memfd per physical
// allocation, host address space per reserved range: fake/internal/vmm);
// Leaks lists the CUDA objects still alive in it.
type fakeBackend struct {
	cfg     config
	version int
	faults  map[string]*faultCounter // read-only after NewBackend

	*graphRoom // CUDA graphs and stream capture, a room of their own whose methods are the graph entry points (graph.go)

	compiler  *nvrtc.Room  // run-time compilation: the compiler and its programs (nvrtc.go)
	libraries libraryState // cuLibrary's libraries and kernels (module_library.go)
	libs      mathLibs     // the fake cuBLAS, cuRAND and cuFFT, made on first use (curand.go)
	nvml      nvmlState    // the fake NVML, made on first use (nvml.go)

	inited atomic.Bool           // cuInit was called
	poison atomic.Pointer[error] // the sticky fault that poisoned the process, if any (see poison.go)

	mu       sync.RWMutex // guards everything below
	devs     []*device
	ctxs     map[uintptr]*context
	stacks   map[int][]*context // per OS thread (tid)
	streams  map[uintptr]*stream
	events   map[uintptr]*event
	modules  map[uintptr]*module
	funcs    map[uintptr]*function
	mem      []*alloc // sorted by base, device, pinned host and IPC mappings
	kernels  map[string]*kernel
	seq      uint64
	tomb     map[uintptr]bool // handles destroyed with their context
	bufferID uint64
	pools    *pools.Room // stream-ordered memory pools, a room of their own (pools.go)
	finished sync.Cond   // on mu: an item finished, a stream's head changed
	gen      uint64      // counts finished items

	exec execLock // runs queued work one item at a time, host callbacks aside

	interp interpState    // the PTX interpreter's load and fault records (interp.go)
	nccl   *nccl.Room     // the in-process NCCL, a room of its own (nccl.go)
	race   *race.Detector // the race detector (race.go, fake/internal/race), nil when off
	vmm    *vmm.Room      // virtual memory management, a room of its own (vmm.go)

	vmmCtxs map[*device]*context // the context-less owner of mappings, per device (vmm.go); guarded by mu
}

type faultCounter struct {
	calls atomic.Int64
	rules []faultRule
}

// New returns a driver.Driver over a new fake Backend (see NewBackend). It
// panics only when cuInit itself fails on the fake, which happens when an
// option asks for it (FailNth("cuInit", 1, ...)) or there are no devices
// (Devices(0) alone): use NewBackend and driver.New to test those.
func New(opts ...Option) *driver.Driver {
	b := newBackend(opts...)
	drv, err := driver.New(b)
	if err != nil {
		panic(fmt.Sprintf("fake.New: %v", err))
	}
	key := weak.Make(drv)
	backends.Store(key, b)
	runtime.AddCleanup(drv, func(k weak.Pointer[driver.Driver]) { backends.Delete(k) }, key)
	return drv
}

// backends maps each live Driver made by New to its backend, for Of.
var backends sync.Map // weak.Pointer[driver.Driver] -> *fakeBackend

// NewBackend returns a new, uninitialised fake backend, for driver.New (which
// calls Init) or for a test's decorator around it. Each backend stands for
// one process: objects of one are unknown to another, except through IPC
// handles. Most programs call New instead.
func NewBackend(opts ...Option) Backend { return newBackend(opts...) }

func newBackend(opts ...Option) *fakeBackend {
	b := &fakeBackend{
		ctxs:    map[uintptr]*context{},
		stacks:  map[int][]*context{},
		streams: map[uintptr]*stream{},
		events:  map[uintptr]*event{},
		modules: map[uintptr]*module{},
		funcs:   map[uintptr]*function{},
		kernels: map[string]*kernel{},
		tomb:    map[uintptr]bool{},
		faults:  map[string]*faultCounter{},
	}
	b.finished.L = &b.mu
	b.cfg.version = 13000
	for _, o := range opts {
		if o != nil {
			o(&b.cfg)
		}
	}
	if !b.cfg.devicesSet {
		b.cfg.devices = []DeviceSpec{{}}
	}
	b.version = b.cfg.version
	b.race = newRaceDetector(b, &b.cfg)
	b.compiler = nvrtc.New(nvrtcCore{b}, b.cfg.compiler)
	b.vmm = vmm.New(vmmCore{b}, poison)
	b.graphRoom = graphs.New(graphsCore{b})
	b.nccl = nccl.New(ncclCore{b})
	for op, rules := range b.cfg.faults {
		b.faults[op] = &faultCounter{rules: rules}
	}
	for i, spec := range b.cfg.devices {
		b.devs = append(b.devs, newDevice(i, spec))
	}
	b.pools = pools.New(len(b.devs))
	for _, k := range b.cfg.kernels {
		b.kernels[k.name] = newKernel(k.name, k.body)
	}
	return b
}

// Of returns the fake under a Driver made by New (or by cudatest's helpers),
// or nil for any other Driver.
func Of(drv *driver.Driver) *Fake {
	if drv == nil {
		return nil
	}
	b, _ := backends.Load(weak.Make(drv))
	p, _ := b.(*fakeBackend)
	if p == nil {
		return nil
	}
	return p.Fake()
}

// registerKernel registers (or replaces) the Go body of a kernel after the
// backend was built; see Kernel for the shape of body. It returns an error
// when body has the wrong shape.
func (b *fakeBackend) registerKernel(name string, body any) error {
	k := newKernel(name, body)
	if k.err != nil {
		return k.err
	}
	b.mu.Lock()
	b.kernels[name] = k
	b.mu.Unlock()
	return nil
}

// baseName strips the versioned suffix of an entry point name.
func baseName(op string) string {
	for _, s := range []string{"_v2", "_v3", "_ptsz", "_ptds"} {
		op = strings.TrimSuffix(op, s)
	}
	return op
}

// enter is the prologue of every entry point: the symbol must exist in the
// configured driver version, a FailNth rule may fire, and cuInit must have
// been called.
func (b *fakeBackend) enter(op string) error {
	if err := b.symbol(op); err != nil {
		return err
	}
	if err := b.fault(op); err != nil {
		return err
	}
	if !b.inited.Load() {
		return driver.ErrNotInitialized
	}
	if p := b.poison.Load(); p != nil && !survivesFault[op] {
		return *p
	}
	return nil
}

func (b *fakeBackend) fault(op string) error {
	if len(b.faults) == 0 {
		return nil
	}
	fc := b.faults[op]
	if fc == nil {
		return nil
	}
	n := fc.calls.Add(1)
	for _, r := range fc.rules {
		if r.n == n {
			if r.code == backend.Success {
				return nil
			}
			return backend.Check(uintptr(r.code))
		}
	}
	return nil
}

// goneLocked is the error for a handle that names no live object: the
// driver answers CUDA_ERROR_CONTEXT_IS_DESTROYED for objects of a destroyed
// context and CUDA_ERROR_INVALID_HANDLE otherwise.
func (b *fakeBackend) goneLocked(h uintptr) error {
	if b.tomb[h] {
		return driver.ErrContextIsDestroyed
	}
	return driver.ErrInvalidHandle
}

// handles: one process-wide sequence, so that handles are never reused and
// a handle of one kind (or one backend) is never valid as another.
var lastHandle atomic.Uintptr

func init() { lastHandle.Store(0x5a0000) }

func newHandle() uintptr { return lastHandle.Add(0x40) }

// Init is cuInit. Flags must be 0.
func (b *fakeBackend) Init(flags uint32) error {
	if err := b.symbol(abi.CuInit); err != nil {
		return err
	}
	if err := b.fault(abi.CuInit); err != nil {
		return err
	}
	if flags != 0 {
		return driver.ErrInvalidValue
	}
	if len(b.devs) == 0 {
		return driver.ErrNoDevice
	}
	b.inited.Store(true)
	return nil
}

// DriverGetVersion is cuDriverGetVersion (works before cuInit, as on the driver).
func (b *fakeBackend) DriverGetVersion() (int, error) {
	if err := b.symbol(abi.CuDriverGetVersion); err != nil {
		return 0, err
	}
	if err := b.fault(abi.CuDriverGetVersion); err != nil {
		return 0, err
	}
	return b.version, nil
}

var _ backend.API = (*fakeBackend)(nil)
