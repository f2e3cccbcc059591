package fake

import (
	"fmt"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/fake/internal/nvrtc"
	"github.com/nocgo/cuda/internal/core"
)

// Run-time compilation is a room of its own (fake/internal/nvrtc): the
// compiler's choice and its programs. The core gives it the kernels' Go
// bodies, the FailNth rules, handles and call sites through nvrtcCore; the
// room's own methods are backend.NVRTCProvider and backend.NVRTCIdentifier
// (compileRoom, embedded in fakeBackend).

// NVRTC makes the backend compile with nv, NVIDIA's libnvrtc from
// gpu.LoadNVRTC, instead of searching for libnvrtc itself. nil selects
// the pretend compiler, as PretendNVRTC does.
//
// Without this option (or PretendNVRTC) the backend searches for libnvrtc
// the first time it is asked for its compiler, as gpu.LoadNVRTC does
// (package loader's search, NOCGO_CUDA_LIBNVRTC), and uses the pretend
// compiler when there is none.
func NVRTC(nv *driver.NVRTC) Option { return compilerNVRTC(core.NVRTCOf(nv)) }

// compilerNVRTC is NVRTC for any backend.NVRTC (the fake's tests give it
// stubs); nil selects the pretend compiler.
func compilerNVRTC(nv backend.NVRTC) Option {
	return func(c *config) { c.compiler = nvrtc.Choice{Set: true, NV: nv} }
}

// PretendNVRTC makes the backend use its pretend compiler, even where
// libnvrtc is installed: kernels need Go bodies (see Kernel) and compile in
// microseconds, and the result is the same on every machine.
func PretendNVRTC() Option { return compilerNVRTC(nil) }

// compileRoom is the run-time compilation room, embedded in fakeBackend:
// its NVRTC is backend.NVRTCProvider's (NVIDIA's libnvrtc when one is found
// or given, see the package doc, NVRTC and PretendNVRTC, else the fake's
// pretend compiler), and its NVRTCIdentity backend.NVRTCIdentifier's,
// naming that compiler without choosing it, as the real backend does.
//
// NVRTCIdentity is a method of the backend, not of the Backend interface: a
// wrapper that embeds Backend and replaces NVRTC does not inherit it, and
// so is never keyed as the fake's own compiler.
type compileRoom = nvrtc.Room

// CompilerOpens counts the calls that asked this backend for its run-time
// compiler (backend.NVRTCProvider's NVRTC, which on the real backend opens
// libnvrtc on the first call): a kernel-cache hit in module.Compile makes
// none. A nil *Fake counts none.
func (f *Fake) CompilerOpens() int64 {
	if f == nil || f.b == nil {
		return 0
	}
	return f.b.compileRoom.Opens()
}

// nvrtcCore is the core as the compile room sees it (nvrtc.Core).
type nvrtcCore struct{ b *fakeBackend }

func (c nvrtcCore) Fault(op string) error { return c.b.fault(op) }

func (c nvrtcCore) Body(name string) (nvrtc.Body, bool) {
	c.b.mu.RLock()
	k := c.b.kernels[name]
	c.b.mu.RUnlock()
	if k == nil {
		return nvrtc.Body{}, false
	}
	return nvrtc.Body{Err: k.err, Params: len(k.params), Lowered: k.lowered}, true
}

func (c nvrtcCore) EntryParams(entry string) string {
	c.b.mu.RLock()
	defer c.b.mu.RUnlock()
	if k := c.b.kernelForEntryLocked(entry); k != nil {
		return k.ptxParams(entry)
	}
	return ""
}

func (c nvrtcCore) Alias(expr, lowered string) {
	c.b.mu.Lock()
	defer c.b.mu.Unlock()
	if k := c.b.kernels[expr]; k != nil && c.b.kernels[lowered] == nil {
		c.b.kernels[lowered] = k
	}
}

func (nvrtcCore) NewHandle() uintptr { return newHandle() }

func (nvrtcCore) Site() fmt.Stringer {
	s := here()
	return &s
}

var (
	_ backend.NVRTCProvider   = (*fakeBackend)(nil)
	_ backend.NVRTCIdentifier = (*fakeBackend)(nil)
)
