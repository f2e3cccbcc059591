package ptxexec

import (
	"math"

	"github.com/nocgo/cuda/internal/ptx"
)

// The warp reductions and matches of sm_70 and sm_80: redux.sync and
// match.{any,all}.sync. Both are warp collectives (see resolveWarp): they
// complete when every lane of the member mask that has not exited waits at
// the same instruction.

// Reduction operators of redux.sync (inst.mode of opRedux).
const (
	reduxAdd = iota
	reduxMin
	reduxMax
	reduxAnd
	reduxOr
	reduxXor
)

var reduxOps = map[string]uint8{"add": reduxAdd, "min": reduxMin, "max": reduxMax, "and": reduxAnd, "or": reduxOr, "xor": reduxXor}

// redux decodes redux.sync.op.type d, a, membermask: add, min and max on
// .u32 and .s32, and, or and xor on .b32 (PTX ISA, "redux.sync").
func (d *decoder) redux(s *ptx.Stmt, m mods, in *inst) error {
	if m.take("sync") == "" {
		return d.fail("redux without .sync")
	}
	opName := ""
	for name, op := range reduxOps {
		if m.take(name) != "" {
			in.mode, opName = op, name
			break
		}
	}
	if opName == "" {
		return d.fail("redux.sync without an operator")
	}
	if err := d.oneType(m, in); err != nil {
		return err
	}
	if err := d.noMore(m); err != nil {
		return err
	}
	if in.bits != 32 || in.kind == kF || in.kind == kPred {
		return d.fail("redux.sync of .%s", typeName(in.kind, in.bits))
	}
	bitwise := in.mode == reduxAnd || in.mode == reduxOr || in.mode == reduxXor
	if isB := m.types[0][0] == 'b'; bitwise != isB {
		return d.fail("redux.sync.%s needs .%s", opName, map[bool]string{true: "b32", false: "u32 or .s32"}[bitwise])
	}
	if err := d.args(s, 3); err != nil {
		return err
	}
	in.op = opRedux
	var err error
	if in.d, err = d.dst(s.Args[0]); err != nil {
		return err
	}
	if in.a, err = d.src(s.Args[1], kU, 32); err != nil {
		return err
	}
	in.b, err = d.src(s.Args[2], kU, 32)
	return err
}

// match decodes match.any.sync.type d, a, membermask and
// match.all.sync.type d[|p], a, membermask on .b32 and .b64.
func (d *decoder) match(s *ptx.Stmt, m mods, in *inst) error {
	switch m.take("any", "all") {
	case "any":
		in.mode = 0
	case "all":
		in.mode = 1
	default:
		return d.fail("match without .any or .all")
	}
	if m.take("sync") == "" {
		return d.fail("match without .sync")
	}
	if err := d.oneType(m, in); err != nil {
		return err
	}
	if err := d.noMore(m); err != nil {
		return err
	}
	if in.bits != 32 && in.bits != 64 || in.kind != kU {
		return d.fail("match of .%s", typeName(in.kind, in.bits))
	}
	if err := d.args(s, 3); err != nil {
		return err
	}
	in.op = opMatch
	in.c = sSink
	dst := s.Args[0]
	var err error
	if dst.Kind == ptx.OpPair {
		if in.mode == 0 {
			return d.fail("match.any has no predicate result")
		}
		if in.c, err = d.dst(dst.Elems()[1]); err != nil {
			return err
		}
		dst = dst.Elems()[0]
	}
	if in.d, err = d.dst(dst); err != nil {
		return err
	}
	if in.a, err = d.src(s.Args[1], kU, in.bits); err != nil {
		return err
	}
	in.b, err = d.src(s.Args[2], kU, 32)
	return err
}

// reduxResult reduces the values of the lanes of group.
func reduxResult(ts []thread, in *inst, group uint32) uint64 {
	var v uint64
	first := true
	for j := range ts {
		if group&(1<<j) == 0 {
			continue
		}
		x := ts[j].regs[in.a] & math.MaxUint32
		if first {
			v, first = x, false
			continue
		}
		switch in.mode {
		case reduxAdd:
			v = (v + x) & math.MaxUint32
		case reduxMin, reduxMax:
			less := x < v
			if in.kind == kS {
				less = int32(x) < int32(v)
			}
			if less == (in.mode == reduxMin) {
				v = x
			}
		case reduxAnd:
			v &= x
		case reduxOr:
			v |= x
		case reduxXor:
			v ^= x
		}
	}
	return v
}

// matchResults sets d (and p) of each lane of group.
func matchResults(ts []thread, in *inst, group uint32) {
	mask := widthMask(in.bits)
	var same [32]uint32
	all := true
	var first uint64
	seen := false
	for j := range ts {
		if group&(1<<j) == 0 {
			continue
		}
		x := ts[j].regs[in.a] & mask
		if !seen {
			first, seen = x, true
		} else if x != first {
			all = false
		}
		for k := range ts {
			if group&(1<<k) != 0 && ts[k].regs[in.a]&mask == x {
				same[j] |= 1 << k
			}
		}
	}
	for j := range ts {
		if group&(1<<j) == 0 {
			continue
		}
		r := ts[j].regs
		switch {
		case in.mode == 0:
			r[in.d] = uint64(same[j])
		case all:
			r[in.d], r[in.c] = uint64(group), 1
		default:
			r[in.d], r[in.c] = 0, 0
		}
	}
	for j := range ts {
		ts[j].regs[sSink] = 0
	}
}
