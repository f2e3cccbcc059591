package fake

import (
	"errors"

	"github.com/nocgo/cuda/driver/backend"
)

// Backend is the fake as a driver backend, for driver.New and for a test's
// decorator that wraps it (a struct embedding Backend forwards every
// interface below, so the decorator keeps the fake's optional features).
// Its methods are the seam's (package driver/backend), one per driver entry
// point; programs call them through the user packages, never directly.
type Backend interface {
	backend.API
	backend.NVRTCProvider
	backend.LeakReporter
	backend.ModuleJIT
	backend.Linker
	backend.KernelLauncherEx
	backend.Occupancy
	backend.ModuleGlobals
	backend.PeerAccessDisabler
	backend.ManagedMemory
	backend.HostRegistration
	backend.Pitched
	backend.Copies3D
	backend.MemPools
	backend.VirtualMemory // vmm.go
	backend.Graphs
	backend.NCCLProvider
	backend.BLASProvider
	backend.BLASLtProvider
	backend.RANDProvider
	backend.FFTProvider
	backend.NVMLProvider // nvml.go
	backend.ProcessSpawner
	backend.RaceDetector
	backend.Libraries // cuLibrary (link.go)
	backend.KernelCache

	// Fake returns the backend's reports and kernels (see Fake).
	Fake() *Fake
}

var _ Backend = (*fakeBackend)(nil)

// Fake is what a test asks of the fake driver beyond the driver API: the
// objects left alive, the calls made, what the PTX interpreter refused or
// faulted on, and Go kernel bodies registered late. Get one with Of (for a
// Driver made by New) or Backend.Fake. It is safe for concurrent use. A nil
// *Fake (what Of returns for any other Driver), and a Fake not made by this
// package, reports nothing, refuses RegisterKernel and Compiler with an
// error and declares nothing (DeclareOrder); it never panics.
type Fake struct{ b *fakeBackend }

// errNotFake is what a nil *Fake's methods that must act return.
var errNotFake = errors.New("fake: not a fake driver (fake.Of returns nil for a Driver that fake.New did not make; use Backend.Fake)")

// Fake returns b's reports and kernels.
func (b *fakeBackend) Fake() *Fake { return &Fake{b} }

// Leaks lists what a test forgot to release, in a stable order: created
// contexts, retained primary contexts (with their reference count),
// streams, events, modules, device allocations (with size and device),
// pinned host memory, IPC mappings not closed, NVRTC programs, CUDA graphs
// and graph execs, and memory pools made by cuMemPoolCreate. Memory mapped
// from another backend's IPC handle is never counted as this backend's to
// free; the mapping is listed until IPCCloseMemHandle. A test that closes
// everything it made expects an empty list (cudatest.Fake checks it).
func (f *Fake) Leaks() []Leak {
	if f == nil || f.b == nil {
		return nil
	}
	return f.b.Leaks()
}

// Calls returns how many times each entry point has been called on the
// backend, by CUDA base name ("cuMemAlloc", "cuStreamCreateWithPriority",
// "nvrtcCompileProgram"; no "_v2" suffix), counting failed calls too.
// Entry points not called are left out. Only a backend built with
// CountCalls counts every entry point; otherwise the map holds the entry
// points that FailNth rules name. The snapshot is not atomic across entry
// points: calls made concurrently with Calls may be counted or not.
func (f *Fake) Calls() map[string]int64 {
	if f == nil || f.b == nil {
		return nil
	}
	return f.b.calls()
}

// KernelFault returns what the first faulting interpreted launch did: the
// PTX line, the instruction, the address and the thread. The driver reports
// only the number (CUDA_ERROR_ILLEGAL_ADDRESS, CUDA_ERROR_MISALIGNED_ADDRESS,
// CUDA_ERROR_LAUNCH_FAILED for a trap or a deadlock), sticky as on a GPU;
// the error wraps that driver.Result. It is nil while no interpreted launch
// failed.
func (f *Fake) KernelFault() error {
	if f == nil || f.b == nil {
		return nil
	}
	return f.b.kernelFault()
}

// LoadError returns why the last module load the PTX interpreter refused
// (CUDA_ERROR_INVALID_PTX) failed: the PTX line, the instruction and what is
// not supported. It is nil when no load was refused. The error wraps
// driver.ErrInvalidPTX; for a Go body (Kernel) whose parameters are not
// those of the PTX entry it was registered for (CUDA_ERROR_INVALID_IMAGE),
// it says which parameter differs, and wraps driver.ErrInvalidImage.
func (f *Fake) LoadError() error {
	if f == nil || f.b == nil {
		return nil
	}
	return f.b.loadError()
}

// RegisterKernel registers (or replaces) the Go body of a kernel after the
// backend was built; see Kernel for the shape of body. It returns an error
// when body has the wrong shape.
func (f *Fake) RegisterKernel(name string, body any) error {
	if f == nil || f.b == nil {
		return errNotFake
	}
	return f.b.registerKernel(name, body)
}

// Compiler says which run-time compiler module.Compile uses on this fake:
// "libnvrtc on the fake" (NVIDIA's libnvrtc, found or given with NVRTC) or
// the pretend compiler's name (PretendNVRTC, or no libnvrtc found). It
// returns the error of opening the compiler, if that failed.
func (f *Fake) Compiler() (string, error) {
	if f == nil || f.b == nil {
		return "", errNotFake
	}
	nv, err := f.b.NVRTC()
	if err != nil {
		return "", err
	}
	return nv.Implementation(), nil
}

// Backend returns the backend itself, for a test that makes raw calls
// through the seam (to create "foreign" objects, or to look at what the
// driver holds).
func (f *Fake) Backend() Backend {
	if f == nil || f.b == nil {
		return nil
	}
	return f.b
}
