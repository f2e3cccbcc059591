package module

import (
	"fmt"
	"reflect"
	"unsafe"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/internal/core"
	"github.com/nocgo/cuda/stream"
)

// Launch enqueues the kernel on s (cuLaunchKernel) with the shape cfg and
// the arguments args (see Kernel arguments in the package documentation).
// Before anything reaches the driver it checks that the module is loaded,
// the stream usable and of the module's context, cfg valid, and each
// argument against the kernel's parameter layout; a failed check launches
// nothing. A cfg.SharedMem over 48 KiB raises the function's
// MaxDynamicSharedSize attribute first (once).
//
// The launch is asynchronous: errors of the kernel itself surface at the
// next synchronisation. Launch copies the arguments and keeps none of
// them; it allocates nothing (see Launch cost in the package
// documentation). For launches in a loop, prepare the arguments once with
// Args and use LaunchArgs.
func (f *Function) Launch(s *stream.Stream, cfg Config, args ...any) error {
	const op = "module.Function.Launch"
	if err := f.check(); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	if err := cfg.checkLaunch(f); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	lay, err := f.layout()
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	if err := f.checkCount(lay, len(args)); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	blk := f.takeBlock(lay)
	base := blk.base()
	for i := range args {
		if err := f.put(lay, i, args[i], base); err != nil {
			f.giveBlock(blk, lay)
			return fmt.Errorf("%s: %w", op, err)
		}
		blk.ptrs[i] = unsafe.Add(base, lay.params[i].offset)
	}
	var params unsafe.Pointer
	if len(args) > 0 {
		params = unsafe.Pointer(&blk.ptrs[0])
	}
	err = f.launch(s, &cfg, params)
	f.giveBlock(blk, lay)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	keepArgs(s, args)
	return nil
}

// LaunchArgs enqueues the kernel on s with prepared arguments (see Args):
// the zero-allocation launch. The arguments must have been prepared for
// this kernel (by f, or by a Function of the same kernel looked up by
// another name).
func (f *Function) LaunchArgs(s *stream.Stream, cfg Config, args *Args) error {
	const op = "module.Function.LaunchArgs"
	if err := f.check(); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	if args == nil || args.f == nil || args.f.h != f.h {
		return fmt.Errorf("%s: %w", op, f.argsForOther(args))
	}
	if err := cfg.checkLaunch(f); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	if err := f.launch(s, &cfg, args.kernelParams()); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	return nil
}

func (f *Function) argsForOther(args *Args) error {
	if args == nil || args.f == nil {
		return fmt.Errorf("%s: nil Args: %w", f, ErrArgs)
	}
	return fmt.Errorf("%s: the Args were prepared for %s: %w", f, args.f, ErrArgs)
}

// launch makes the call: the stream's checks and binding, the shared
// memory attribute, cuLaunchKernel. Its errors name the kernel; the caller
// adds its own name.
func (f *Function) launch(s *stream.Stream, cfg *Config, params unsafe.Pointer) (err error) {
	q := core.QueueOf(s)
	if q == nil {
		return fmt.Errorf("%s: nil or zero stream: %w", f, driver.ErrInvalidInput)
	}
	// The module is held for the call: a concurrent Close (cuModuleUnload)
	// waits for it.
	if err := f.m.hold.Use(f.m); err != nil {
		return fmt.Errorf("%s: %w", f, err)
	}
	defer f.m.hold.Unuse()
	b, err := q.Use()
	if err != nil {
		return fmt.Errorf("%s: %w", f, err)
	}
	// A special stream binds the context: a failed unbinding is reported
	// (after the call's own error). Binding nothing, as for every other
	// stream, Unbind does nothing.
	defer func() {
		if uerr := b.Unbind(); uerr != nil && err == nil {
			err = fmt.Errorf("%s on %s: %w", f, s, uerr)
		}
	}()
	if sc := s.Context(); !sc.Same(f.m.ctx) {
		return fmt.Errorf("%s: %s belongs to %s, the module to %s: %w", f, s, sc, f.m.ctx, driver.ErrWrongContext)
	}
	if cfg.empty() {
		return nil // the empty launch (see Config): checked, and nothing to run
	}
	if cfg.SharedMem > defaultDynamicShared && int64(cfg.SharedMem) > f.k.maxDyn.Load() {
		if err := f.ensureShared(cfg.SharedMem); err != nil {
			return err
		}
	}
	g, bl := cfg.Grid, cfg.Block
	if cfg.extended() {
		if err := f.launchEx(s, cfg, params); err != nil {
			return err
		}
		q.Keep(f.m.hold)
		return nil
	}
	err = f.m.api().LaunchKernel(f.h,
		[3]uint32{uint32(g.X), uint32(g.Y), uint32(g.Z)},
		[3]uint32{uint32(bl.X), uint32(bl.Y), uint32(bl.Z)},
		uint32(cfg.SharedMem), s.Handle(), params)
	if err != nil {
		return fmt.Errorf("%s on %s: cuLaunchKernel: %w", f, s, core.Unusable(err))
	}
	// A captured launch: the graph retains the module (held for this
	// call, so not closed meanwhile).
	q.Keep(f.m.hold)
	return nil
}

// keepArgs retains, for the graph that a capture of s makes, the memory of
// the buffers among args, after a launch of them (see core.Queue.Keep):
// a captured graph keeps its kernels' buffers as it keeps its copies'
// (holdOf reads each one's hold).
func keepArgs(s *stream.Stream, args []any) {
	q := core.QueueOf(s)
	if !q.Capturing() {
		return
	}
	for _, a := range args {
		if a != nil && kindOf(reflect.TypeOf(a)).kind == argBuffer {
			q.KeepOpen(holdOf(a))
		}
	}
}
