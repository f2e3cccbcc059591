package nvrtc

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/libnvrtc"
)

// Choice is what the fake's options chose for a backend's compiler.
type Choice struct {
	Set bool          // an option chose (fake.NVRTC, fake.PretendNVRTC)
	NV  backend.NVRTC // nil: the pretend compiler
}

// Room is one fake backend's compiler and its programs. It is safe for
// concurrent use.
type Room struct {
	core   Core
	choice Choice
	opens  atomic.Int64 // NVRTC calls: what opens libnvrtc on the real backend

	pick    sync.Mutex    // guards the choice made below, once
	done    bool          // chosen
	nv      backend.NVRTC // nil: the pretend compiler
	missing error         // why libnvrtc was not found, when searched for

	mu    sync.RWMutex // guards progs and the fields of their programs
	progs map[uintptr]*program
}

// New returns the room of a backend whose core is core.
func New(core Core, choice Choice) *Room {
	return &Room{core: core, choice: choice, progs: map[uintptr]*program{}}
}

// NVRTC is backend.NVRTCProvider's NVRTC: NVIDIA's libnvrtc when one is
// found or given, else the pretend compiler. It never fails.
func (r *Room) NVRTC() (backend.NVRTC, error) {
	r.opens.Add(1)
	if nv := r.realCompiler(); nv != nil {
		return nvidia{r, nv}, nil
	}
	return pretend{r}, nil
}

// Opens counts the NVRTC calls (a kernel-cache hit in module.Compile
// makes none).
func (r *Room) Opens() int64 { return r.opens.Load() }

// Leak is a program not destroyed.
type Leak struct {
	Handle uintptr
	Name   string // the program's name
	Site   string // the call site that made it
}

// Leaks lists the programs not destroyed.
func (r *Room) Leaks() []Leak {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]Leak, 0, len(r.progs))
	for h, p := range r.progs {
		out = append(out, Leak{Handle: h, Name: p.name, Site: p.site.String()})
	}
	return out
}

// Reset forgets every program, as the end of the process that made them
// does.
func (r *Room) Reset() {
	r.mu.Lock()
	clear(r.progs)
	r.mu.Unlock()
}

// realCompiler returns NVIDIA's NVRTC when the backend uses it, else nil.
// The first call searches for libnvrtc unless an option chose; it opens the
// binding itself (internal/libnvrtc, as gpu.LoadNVRTC does), so that the
// fake links no libcuda backend.
func (r *Room) realCompiler() backend.NVRTC {
	r.pick.Lock()
	defer r.pick.Unlock()
	if r.done {
		return r.nv
	}
	r.done = true
	if r.choice.Set {
		r.nv = r.choice.NV
		return r.nv
	}
	nv, err := libnvrtc.Open()
	if err != nil {
		r.missing = err
		return nil
	}
	r.nv = nv
	return nv
}

// noNVRTC says, for a kernel the pretend compiler cannot compile, why
// NVIDIA's compiler (which would compile it, no Go body needed) is not in
// use: not found where it was looked for. Empty when the pretend compiler
// was chosen (fake.PretendNVRTC).
func (r *Room) noNVRTC() string {
	r.pick.Lock()
	defer r.pick.Unlock()
	if r.missing == nil {
		return ""
	}
	return fmt.Sprintf(", or install NVIDIA's libnvrtc, which compiles it with none (%v)", r.missing)
}

// add records a new program and returns its handle.
func (r *Room) add(p *program) uintptr {
	h := r.core.NewHandle()
	r.mu.Lock()
	r.progs[h] = p
	r.mu.Unlock()
	return h
}

// enter applies FailNth to an NVRTC entry point (the rule's code is taken as
// an nvrtcResult).
func (r *Room) enter(op string) error {
	if err := r.core.Fault(op); err != nil {
		code, ok := err.(backend.Result)
		if !ok {
			code = 11 // NVRTC_ERROR_INTERNAL_ERROR
		}
		return nvrtcErr(int(code), op)
	}
	return nil
}
