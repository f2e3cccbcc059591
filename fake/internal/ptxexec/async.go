package ptxexec

import (
	"github.com/nocgo/cuda/internal/ptx"
)

// The asynchronous copies of sm_80: cp.async.ca/cg.shared.global with a
// copy size of 4, 8 or 16 bytes (16 only for .cg) and an optional source
// size (the bytes read; the rest of the destination is zero-filled), and
// cp.async.commit_group, cp.async.wait_group n and cp.async.wait_all, as
// NVRTC emits them for cuda_pipeline.h's __pipeline_memcpy_async,
// __pipeline_commit and __pipeline_wait_prior (and cooperative_groups'
// memcpy_async).
//
// The interpreter performs the copy when the thread issues it, so commit
// and wait have nothing left to wait for: a kernel that reads the
// destination only after waiting for its group (as it must: reading it
// before is undefined) sees what it would see on the GPU. The copy's read
// of global memory is checked (bounds, alignment to the copy size) and
// observed like a ld.global, its write of shared memory like a st.shared.

func (d *decoder) cpAsync(s *ptx.Stmt, m mods, in *inst) error {
	if m.take("async") == "" {
		return d.fail("cp without .async")
	}
	switch {
	case m.take("commit_group") != "", m.take("wait_all") != "":
		in.op = opNop
		if err := d.noMore(m); err != nil {
			return err
		}
		return d.args(s, 0)
	case m.take("wait_group") != "":
		in.op = opNop
		if err := d.noMore(m); err != nil {
			return err
		}
		if err := d.args(s, 1); err != nil {
			return err
		}
		if s.Args[0].Kind != ptx.OpImm || s.Args[0].Int < 0 {
			return d.fail("cp.async.wait_group needs a constant group count")
		}
		return nil
	}
	cache := m.take("ca", "cg")
	if cache == "" {
		return d.fail("cp.async needs .ca or .cg")
	}
	if m.take("shared") == "" || m.take("global") == "" {
		return d.fail("cp.async other than .shared.global")
	}
	if m.take("bulk") != "" || m.take("mbarrier") != "" {
		return d.fail("cp.async.bulk is not supported")
	}
	m.take("cta")
	if m.take("L2::cache_hint") != "" {
		return d.fail("cp.async with a cache policy operand is not supported")
	}
	if err := d.noMore(m); err != nil {
		return err
	}
	if len(s.Args) != 3 && len(s.Args) != 4 {
		return d.fail("%d operands, want 3 or 4", len(s.Args))
	}
	size := s.Args[2]
	if size.Kind != ptx.OpImm || size.Int != 4 && size.Int != 8 && size.Int != 16 {
		return d.fail("cp.async copy size must be 4, 8 or 16")
	}
	if cache == "cg" && size.Int != 16 {
		return d.fail("cp.async.cg copies 16 bytes")
	}
	in.op = opCpAsync
	in.size = uint8(size.Int)
	var err error
	var srcOff int64
	if in.a, in.imm, _, err = d.addr(s.Args[0], "shared"); err != nil {
		return err
	}
	if in.b, srcOff, _, err = d.addr(s.Args[1], "global"); err != nil {
		return err
	}
	in.c = d.constSlot(uint64(srcOff))
	in.v = [4]int32{-1, -1, -1, -1}
	if len(s.Args) == 4 {
		if o := s.Args[3]; o.Kind == ptx.OpImm && (o.Int < 0 || o.Int > size.Int) {
			return d.fail("cp.async source size %d above the copy size %d", o.Int, size.Int)
		}
		if in.v[0], err = d.src(s.Args[3], kU, 32); err != nil {
			return err
		}
	}
	return nil
}

// cpAsync copies in.size bytes from global to shared memory for thread t
// (registers r): the source size's bytes, then zeros. It reports false
// after a fault.
func (m *machine) cpAsync(t *thread, in *inst, r []uint64) bool {
	n := uint64(in.size)
	dst := (r[in.a] + uint64(in.imm)) & 0xffffffff
	src := r[in.b] + r[in.c]
	srcSize := n
	if in.v[0] >= 0 {
		srcSize = r[in.v[0]] & 0xffffffff
	}
	if srcSize > n {
		m.fail(t, in, CodeIllegalInstr, 0, "cp.async source size above the copy size")
		return false
	}
	if src&(n-1) != 0 {
		m.fail(t, in, CodeMisalignedAddress, src, "misaligned access")
		return false
	}
	var from []byte
	if srcSize > 0 {
		if from = m.access(t, in, opLdGlobal, src, srcSize); from == nil {
			return false
		}
	}
	to := m.access(t, in, opStShared, dst, n)
	if to == nil {
		return false
	}
	clear(to[copy(to, from):])
	return true
}
