package module

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/core"
	"github.com/nocgo/cuda/loader"
)

// Function is a kernel of a Module (a CUfunction). It belongs to its module:
// once the module is unloaded every method returns an error wrapping
// driver.ErrClosed. It is safe for concurrent use.
type Function struct {
	kernelNodeLink // kernelNode, for package graph

	m     *Module
	h     uintptr
	name  string // as asked for
	entry string // the lowered name

	// The parameter layout: nil until read, then published once and never
	// changed, so that a launch reads it with one atomic load. A read that
	// failed publishes nothing, and the next launch reads again.
	lay   atomic.Pointer[layout]
	layMu sync.Mutex // serialises reading it

	spare atomic.Pointer[block] // a launch block kept for the next Launch

	k *kernel // the state shared with other Functions of the same CUfunction
}

// kernel is what the Functions of one CUfunction share, whatever name they
// were looked up by: the driver keeps the function's attributes per
// CUfunction, so what is known of them is kept per CUfunction too.
type kernel struct {
	smemMu  sync.Mutex
	maxDyn  atomic.Int64 // the MaxDynamicSharedSize the function is known to allow
	smemSet bool         // maxDyn was read or set
}

// param is one kernel parameter: where it lies in the parameter buffer,
// and, where the module's PTX says (see ptxType), what type it is.
type param struct {
	offset, size int
	ptxType
	c *cParam // what the module's CUDA C source says of it; nil: unknown (csig.go)
}

// layout is what is known of a kernel's parameters, immutable once made.
type layout struct {
	params []param // non-nil unless err is set
	size   int     // bytes of the parameter buffer
	src    string  // "cuFuncGetParamInfo" or "PTX"
	err    error   // the layout cannot be known (wraps ErrNoLayout)
}

func newLayout(ps []param, src string) *layout {
	l := &layout{params: ps, src: src}
	if l.params == nil {
		l.params = []param{}
	}
	if n := len(ps); n > 0 {
		l.size = ps[n-1].offset + ps[n-1].size
	}
	return l
}

// maxParams bounds the parameters asked of cuFuncGetParamInfo: a kernel's
// parameters take at most 32764 bytes, each at least one.
const maxParams = 32764

// Param describes one parameter of a kernel.
type Param struct {
	Offset int // bytes from the start of the parameter buffer
	Size   int // bytes
}

// defaultDynamicShared is the dynamic shared memory a launch may use
// without raising the function's MaxDynamicSharedSize attribute.
const defaultDynamicShared = 48 << 10

func newFunction(m *Module, k *kernel, h uintptr, name, entry string) *Function {
	f := &Function{m: m, k: k, h: h, name: name, entry: entry}
	f.kernelNodeLink = core.LinkKernelNode(f.kernelNode)
	// A failure leaves the layout unread: the first launch reads it again
	// and reports the failure if it persists.
	_, _ = f.readLayout()
	return f
}

// layout returns the kernel's parameter layout, reading it if no read has
// succeeded yet. Once read, it costs one atomic load and allocates nothing.
// The errors name the kernel.
func (f *Function) layout() (*layout, error) {
	l := f.lay.Load()
	if l == nil {
		var err error
		if l, err = f.readLayout(); err != nil {
			return nil, err
		}
	}
	if l.err != nil {
		return nil, fmt.Errorf("%s: %w", f, l.err)
	}
	return l, nil
}

// readLayout reads the kernel's parameter layout, from the driver
// (cuFuncGetParamInfo, CUDA 12.4+) or else from the module's PTX, and
// publishes it. A failure of the driver publishes nothing and is returned:
// the layout stays unread, and the next call reads it again.
func (f *Function) readLayout() (*layout, error) {
	f.layMu.Lock()
	defer f.layMu.Unlock()
	if l := f.lay.Load(); l != nil {
		return l, nil
	}
	if core.InCallback() {
		return nil, fmt.Errorf("%s: reading the parameter layout: %w", f, core.ErrInCallback)
	}
	l, err := f.queryLayout()
	if err != nil {
		return nil, err
	}
	f.lay.Store(l)
	return l, nil
}

// queryLayout asks the driver for the layout, parameter by parameter, and
// reads the PTX signature when the driver cannot tell.
func (f *Function) queryLayout() (*layout, error) {
	api := f.m.api()
	var ps []param
	for i := 0; i < maxParams; i++ {
		off, size, err := api.FuncGetParamInfo(f.h, i)
		if errors.Is(err, driver.ErrInvalidValue) {
			// Past the last parameter, or a failure that says the same:
			// the driver's answer past the end is the same every time, a
			// failure is not, so ask again.
			off, size, err = api.FuncGetParamInfo(f.h, i)
			if errors.Is(err, driver.ErrInvalidValue) {
				f.addPTXTypes(ps)
				f.addCSignature(ps)
				return newLayout(ps, "cuFuncGetParamInfo"), nil
			}
		}
		if err != nil {
			if !noParamInfo(err) {
				return nil, fmt.Errorf("%s: reading the parameter layout: cuFuncGetParamInfo(%d): %w", f, i, err)
			}
			// The driver cannot tell: read the PTX signature instead.
			return f.ptxLayout(), nil
		}
		ps = append(ps, param{offset: int(off), size: int(size)})
	}
	// More parameters than a kernel can have: not an answer to trust.
	return f.ptxLayout(), nil
}

// noParamInfo reports whether err says, for good, that the driver cannot
// give the layout: the entry point is missing (before CUDA 12.4), or the
// call is not supported.
func noParamInfo(err error) bool {
	var serr *loader.SymbolError
	return errors.As(err, &serr) || errors.Is(err, driver.ErrNotSupported)
}

// ptxLayout is the layout of the kernel's PTX signature, or, without one,
// a layout that says it cannot be known.
func (f *Function) ptxLayout() *layout {
	e, err := f.m.entry(f.entry)
	if err != nil {
		return &layout{err: err}
	}
	ps := make([]param, 0, len(e.Params))
	for _, p := range e.Params {
		ps = append(ps, param{offset: p.Offset, size: p.Size, ptxType: typeOf(p)})
	}
	f.addCSignature(ps)
	return newLayout(ps, "PTX")
}

// addCSignature adds to ps what the kernel's CUDA C signature says of each
// parameter (its name, its C type), where the module was compiled from a
// source that declares the kernel simply and with as many parameters.
func (f *Function) addCSignature(ps []param) {
	if f.m.csrc == "" {
		return
	}
	cs, ok := cSignature(f.m.csrc, f.name)
	if !ok || len(cs) != len(ps) {
		return
	}
	for i := range ps {
		ps[i].c = &cs[i]
	}
}

// addPTXTypes adds to the driver's layout ps the parameter types of the
// kernel's PTX signature, where the module has one that agrees with the
// driver on every offset and size (else the layout stays sizes only).
func (f *Function) addPTXTypes(ps []param) {
	e, err := f.m.entry(f.entry)
	if err != nil || len(e.Params) != len(ps) {
		return
	}
	for i, p := range e.Params {
		if p.Offset != ps[i].offset || p.Size != ps[i].size {
			return
		}
	}
	for i, p := range e.Params {
		ps[i].ptxType = typeOf(p)
	}
}

// Name returns the name the function was looked up by.
func (f *Function) Name() string {
	if f == nil {
		return ""
	}
	return f.name
}

// LoweredName returns the kernel's symbol: the name itself for an extern
// "C" kernel, the mangled name for a name expression.
func (f *Function) LoweredName() string {
	if f == nil {
		return ""
	}
	return f.entry
}

// Module returns the function's module.
func (f *Function) Module() *Module {
	if f == nil {
		return nil
	}
	return f.m
}

// Handle returns the raw CUfunction.
func (f *Function) Handle() uintptr {
	if f == nil {
		return 0
	}
	return f.h
}

// Params returns the kernel's parameter layout, as the launch checks use
// it: from cuFuncGetParamInfo where the driver has it, else from the PTX
// signature. It returns an error wrapping ErrNoLayout when neither is
// available, and the driver's error when reading the layout failed (the next
// call, or launch, reads it again).
func (f *Function) Params() ([]Param, error) {
	const op = "module.Function.Params"
	if err := f.check(); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	lay, err := f.layout()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	out := make([]Param, len(lay.params))
	for i, p := range lay.params {
		out[i] = Param{Offset: p.offset, Size: p.size}
	}
	return out, nil
}

// String names the function, for errors and logs.
func (f *Function) String() string {
	if f == nil {
		return "nil kernel"
	}
	if f.entry != f.name {
		return fmt.Sprintf("kernel %s (%s)", f.name, f.entry)
	}
	return "kernel " + f.name
}

// check reports a nil, zero or unloaded function; the exported methods add
// their name.
func (f *Function) check() error {
	if f == nil || f.m == nil {
		return fmt.Errorf("nil function: %w", driver.ErrInvalidInput)
	}
	if f.m.closed() {
		return fmt.Errorf("%s: module %#x is closed: %w", f, f.m.h, driver.ErrClosed)
	}
	return nil
}

// Attributes are a kernel's resource usage and limits, as the driver
// reports them (cuFuncGetAttribute).
type Attributes struct {
	MaxThreadsPerBlock   int // the most threads a block of this kernel may have
	SharedSizeBytes      int // static shared memory per block
	ConstSizeBytes       int // constant memory
	LocalSizeBytes       int // local memory per thread
	NumRegs              int // registers per thread
	PTXVersion           int // PTX virtual architecture, 10*major+minor (90)
	BinaryVersion        int // binary architecture, 10*major+minor (90)
	MaxDynamicSharedSize int // the most dynamic shared memory a launch may ask for
}

// Attribute returns one function attribute (cuFuncGetAttribute).
func (f *Function) Attribute(a FunctionAttribute) (int, error) {
	const op = "module.Function.Attribute"
	if err := f.check(); err != nil {
		return 0, fmt.Errorf("%s: %w", op, err)
	}
	v, err := f.attribute(a)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", op, err)
	}
	return v, nil
}

// attribute reads attribute a of a checked function.
func (f *Function) attribute(a FunctionAttribute) (int, error) {
	b, err := f.m.hold.Bind()
	if err != nil {
		return 0, fmt.Errorf("%s: %w", f, err)
	}
	v, err := f.m.api().FuncGetAttribute(a, f.h)
	if err != nil {
		err = fmt.Errorf("%s: cuFuncGetAttribute(%d): %w", f, a, err)
	}
	if err = f.unbind(b, err); err != nil {
		return 0, err
	}
	return v, nil
}

// unbind undoes b after a call that returned err, and returns err, or else
// the unbinding's error naming the function.
func (f *Function) unbind(b core.Binding, err error) error {
	if uerr := b.Unbind(); uerr != nil && err == nil {
		return fmt.Errorf("%s: %w", f, uerr)
	}
	return err
}

// Attributes returns the kernel's attributes.
func (f *Function) Attributes() (Attributes, error) {
	const op = "module.Function.Attributes"
	if err := f.check(); err != nil {
		return Attributes{}, fmt.Errorf("%s: %w", op, err)
	}
	var at Attributes
	for _, x := range []struct {
		a backend.FunctionAttribute
		v *int
	}{
		{backend.FuncMaxThreadsPerBlock, &at.MaxThreadsPerBlock},
		{backend.FuncSharedSizeBytes, &at.SharedSizeBytes},
		{backend.FuncConstSizeBytes, &at.ConstSizeBytes},
		{backend.FuncLocalSizeBytes, &at.LocalSizeBytes},
		{backend.FuncNumRegs, &at.NumRegs},
		{backend.FuncPTXVersion, &at.PTXVersion},
		{backend.FuncBinaryVersion, &at.BinaryVersion},
		{backend.FuncMaxDynamicSharedSize, &at.MaxDynamicSharedSize},
	} {
		v, err := f.attribute(x.a)
		if err != nil {
			return Attributes{}, fmt.Errorf("%s: %w", op, err)
		}
		*x.v = v
	}
	return at, nil
}

// SetMaxDynamicSharedMemory allows launches of the kernel to use up to bytes
// of dynamic shared memory (cuFuncSetAttribute with
// MAX_DYNAMIC_SHARED_SIZE_BYTES). Launches need it above 48 KiB; Launch
// calls it by itself when Config.SharedMem is larger than what the function
// allows so far, so calling it is only needed to fail early or to lower the
// limit. The device's opt-in maximum (227 KiB on an H200) minus the
// kernel's static shared memory is the most the driver accepts.
func (f *Function) SetMaxDynamicSharedMemory(bytes int) error {
	const op = "module.Function.SetMaxDynamicSharedMemory"
	if err := f.check(); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	if bytes < 0 {
		return fmt.Errorf("%s: %s: negative size %d: %w", op, f, bytes, driver.ErrInvalidInput)
	}
	f.k.smemMu.Lock()
	defer f.k.smemMu.Unlock()
	if err := f.setMaxDynLocked(bytes); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	return nil
}

// setMaxDynLocked sets the attribute; its errors name the kernel, and the
// caller adds its own name.
func (f *Function) setMaxDynLocked(bytes int) error {
	b, err := f.m.hold.Bind()
	if err != nil {
		return fmt.Errorf("%s: %w", f, err)
	}
	if err := f.m.api().FuncSetAttribute(f.h, backend.FuncMaxDynamicSharedSize, bytes); err != nil {
		return f.unbind(b, fmt.Errorf("%s: cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES, %d): %w", f, bytes, err))
	}
	// The attribute is set: what is known of it changes, whatever the
	// unbinding says.
	f.k.maxDyn.Store(int64(bytes))
	f.k.smemSet = true
	return f.unbind(b, nil)
}

// ensureShared raises the function's dynamic shared memory limit to bytes
// if a launch asks for more than it allows. It is off the hot path: launches
// of 48 KiB or less, or within what was set before, do not call it.
func (f *Function) ensureShared(bytes int) error {
	f.k.smemMu.Lock()
	defer f.k.smemMu.Unlock()
	if f.k.smemSet && int64(bytes) <= f.k.maxDyn.Load() {
		return nil
	}
	return f.setMaxDynLocked(bytes)
}

// MaxPotentialBlockSize returns the block size that maximises the kernel's
// occupancy, and the minimum grid size that reaches it on the whole device
// (cuOccupancyMaxPotentialBlockSize), for a launch with dynamicSmem bytes of
// dynamic shared memory per block. limit caps the block size; 0 means none.
func (f *Function) MaxPotentialBlockSize(dynamicSmem, limit int) (minGrid, block int, err error) {
	const op = "module.Function.MaxPotentialBlockSize"
	if err := f.check(); err != nil {
		return 0, 0, fmt.Errorf("%s: %w", op, err)
	}
	if dynamicSmem < 0 || limit < 0 {
		return 0, 0, fmt.Errorf("%s: %s: negative argument (dynamicSmem %d, limit %d): %w", op, f, dynamicSmem, limit, driver.ErrInvalidInput)
	}
	b, err := f.m.hold.Bind()
	if err != nil {
		return 0, 0, fmt.Errorf("%s: %s: %w", op, f, err)
	}
	minGrid, block, err = f.m.api().OccupancyMaxPotentialBlockSize(f.h, uintptr(dynamicSmem), limit)
	if err != nil {
		err = fmt.Errorf("%s: cuOccupancyMaxPotentialBlockSize: %w", f, err)
	}
	if err = f.unbind(b, err); err != nil {
		return 0, 0, fmt.Errorf("%s: %w", op, err)
	}
	return minGrid, block, nil
}
