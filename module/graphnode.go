package module

import (
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/core"
)

// kernelNodeLink names the link through which package graph turns a launch
// of a Function into a graph kernel node (core.KernelNode): plumbing that
// users never see.
type kernelNodeLink = core.KernelNodeLink[Config, *Args]

// kernelNode checks a launch of f with cfg and the prepared args as
// LaunchArgs does, and returns it as the parameters of a CUDA graph kernel
// node (CUDA_KERNEL_NODE_PARAMS), for graph.Graph.AddKernel. The result
// points into args: args must stay reachable until the node is added (the
// driver copies the argument values then). A cfg.SharedMem over 48 KiB
// raises the function's MaxDynamicSharedSize attribute first, as Launch
// does. The caller names the operation in its errors. The hold returned is
// the module's, which a graph retains while it refers to the kernel (so
// Module.Close is refused meanwhile).
func (f *Function) kernelNode(cfg Config, args *Args) (backend.KernelNodeParams, *core.Hold, error) {
	if err := f.check(); err != nil {
		return backend.KernelNodeParams{}, nil, err
	}
	if args == nil || args.f == nil || args.f.h != f.h {
		return backend.KernelNodeParams{}, nil, f.argsForOther(args)
	}
	if err := cfg.check(f); err != nil {
		return backend.KernelNodeParams{}, nil, err
	}
	if cfg.SharedMem > defaultDynamicShared && int64(cfg.SharedMem) > f.k.maxDyn.Load() {
		if err := f.ensureShared(cfg.SharedMem); err != nil {
			return backend.KernelNodeParams{}, nil, err
		}
	}
	g, bl := cfg.Grid, cfg.Block
	return backend.KernelNodeParams{
		Func:      f.h,
		Grid:      [3]uint32{uint32(g.X), uint32(g.Y), uint32(g.Z)},
		Block:     [3]uint32{uint32(bl.X), uint32(bl.Y), uint32(bl.Z)},
		SharedMem: uint32(cfg.SharedMem),
		Params:    args.kernelParams(),
		Ctx:       f.m.ctx.Handle(),
	}, f.m.hold, nil
}
