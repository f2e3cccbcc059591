package ptxexec

import (
	"encoding/binary"

	"github.com/nocgo/cuda/internal/ptx"
)

// mbarrier: the sm_80/sm_90 barrier objects in shared memory, as
// cuda_awbarrier_primitives.h (__mbarrier_*), cuda::barrier and
// cuda::pipeline compile: mbarrier.init, inval, arrive and arrive_drop
// (with a count, the state token as result or "_"), expect_tx and
// complete_tx and arrive.expect_tx (the transaction count of sm_90),
// test_wait and try_wait (with a state token, or .parity with a phase
// parity), pending_count, and cp.async.mbarrier.arrive(.noinc).
//
// The 64-bit object holds the phase (bit 63), the pending arrivals (bits
// 0-20), the expected arrivals (bits 21-41) and the pending transaction
// bytes (bits 42-62); a phase completes when the pending arrivals and
// transaction bytes are both 0: the phase flips and the pending arrivals
// are the expected ones again. A state token is the phase bit and the
// pending arrivals after the arrive. A wait that finds its phase not yet
// complete returns false and lets the block's other threads run (the
// thread yields), so the usual spin loop on test_wait or try_wait makes
// progress. cp.async copies are done when issued, so
// cp.async.mbarrier.arrive arrives at once (.noinc), or changes nothing
// (without .noinc it counts one arrival more and performs it).
//
// The object's encoding is the interpreter's own (the hardware's is
// opaque too): a kernel that reads the 64 bits directly sees this one.

// Sub-operations of opMbarrier (inst.mode).
const (
	mbarInit = iota
	mbarInval
	mbarArrive     // arrive, arrive.expect_tx (imm: 1), cp.async.mbarrier.arrive.noinc
	mbarArriveDrop // arrive_drop
	mbarExpectTx
	mbarCompleteTx
	mbarTestWait // test_wait, try_wait
	mbarPending  // pending_count
	mbarNop      // cp.async.mbarrier.arrive without .noinc
)

const (
	mbarCountBits = 21
	mbarCountMask = 1<<mbarCountBits - 1
	mbarMaxCount  = 1<<20 - 1
	mbarPhase     = 1 << 63
)

func (d *decoder) mbarrier(s *ptx.Stmt, m mods, in *inst) error {
	in.op = opMbarrier
	in.v = [4]int32{-1, -1, -1, -1}
	var op string
	for _, name := range []string{"init", "inval", "arrive", "arrive_drop", "expect_tx", "complete_tx", "test_wait", "try_wait", "pending_count"} {
		if m.take(name) != "" {
			op = name
			break
		}
	}
	expectTx := op == "arrive" && m.take("expect_tx") != ""
	parity := m.take("parity") != ""
	switch {
	case m.take("shared") != "", m.take("shared::cta") != "":
	case m.take("shared::cluster") != "":
		return d.fail("mbarrier on .shared::cluster is not supported")
	default:
		in.k2 = 1 // a generic address
	}
	m.take("release")
	m.take("acquire")
	m.take("relaxed")
	m.take("cta")
	if m.take("cluster") != "" {
		return d.fail("mbarrier with .cluster scope is not supported")
	}
	if len(m.types) != 1 || m.types[0] != "b64" {
		return d.fail("mbarrier needs .b64")
	}
	if err := d.noMore(m); err != nil {
		return err
	}
	var err error
	addr := func(o ptx.Operand) error {
		space := "shared"
		if in.k2 == 1 {
			space = ""
		}
		in.a, in.imm, _, err = d.addr(o, space)
		return err
	}
	operand := func(i int, bits uint8) (int32, error) {
		if i >= len(s.Args) {
			return sZero, nil
		}
		return d.src(s.Args[i], kU, bits)
	}
	switch op {
	case "init", "expect_tx", "complete_tx":
		in.mode = map[string]uint8{"init": mbarInit, "expect_tx": mbarExpectTx, "complete_tx": mbarCompleteTx}[op]
		if err := d.args(s, 2); err != nil {
			return err
		}
		if err := addr(s.Args[0]); err != nil {
			return err
		}
		in.b, err = operand(1, 32)
		return err
	case "inval":
		in.mode = mbarInval
		if err := d.args(s, 1); err != nil {
			return err
		}
		return addr(s.Args[0])
	case "arrive", "arrive_drop":
		in.mode = mbarArrive
		if op == "arrive_drop" {
			in.mode = mbarArriveDrop
		}
		if len(s.Args) != 2 && len(s.Args) != 3 {
			return d.fail("%d operands, want 2 or 3", len(s.Args))
		}
		if expectTx && len(s.Args) != 3 {
			return d.fail("mbarrier.arrive.expect_tx needs a transaction count")
		}
		if in.d, err = d.dst(s.Args[0]); err != nil {
			return err
		}
		if err := addr(s.Args[1]); err != nil {
			return err
		}
		in.b = d.constSlot(1) // the arrival count
		if len(s.Args) == 3 {
			if expectTx {
				in.c, err = operand(2, 32) // the transaction bytes
			} else {
				in.b, err = operand(2, 32)
			}
		} else {
			in.c = sZero
		}
		if !expectTx {
			in.c = sZero
		}
		return err
	case "test_wait", "try_wait":
		in.mode = mbarTestWait
		if parity {
			in.b2 = 1
		}
		if len(s.Args) != 3 && !(op == "try_wait" && len(s.Args) == 4) {
			return d.fail("%d operands, want 3", len(s.Args))
		}
		if in.d, err = d.dst(s.Args[0]); err != nil {
			return err
		}
		if err := addr(s.Args[1]); err != nil {
			return err
		}
		if parity {
			in.b, err = operand(2, 32)
		} else {
			in.b, err = operand(2, 64)
		}
		return err // a suspend-time hint is ignored
	case "pending_count":
		in.mode = mbarPending
		if err := d.args(s, 2); err != nil {
			return err
		}
		if in.d, err = d.dst(s.Args[0]); err != nil {
			return err
		}
		in.a, err = operand(1, 64)
		return err
	}
	return d.fail("unsupported mbarrier operation")
}

// cpAsyncMbarrier decodes cp.async.mbarrier.arrive{.noinc}{.shared}.b64 [addr].
func (d *decoder) cpAsyncMbarrier(s *ptx.Stmt, m mods, in *inst) error {
	in.op, in.mode = opMbarrier, mbarNop
	if m.take("noinc") != "" {
		in.mode = mbarArrive
	}
	in.v = [4]int32{-1, -1, -1, -1}
	switch {
	case m.take("shared") != "", m.take("shared::cta") != "":
	default:
		in.k2 = 1
	}
	if len(m.types) != 1 || m.types[0] != "b64" {
		return d.fail("cp.async.mbarrier.arrive needs .b64")
	}
	if err := d.noMore(m); err != nil {
		return err
	}
	if err := d.args(s, 1); err != nil {
		return err
	}
	space := "shared"
	if in.k2 == 1 {
		space = ""
	}
	var err error
	in.a, in.imm, _, err = d.addr(s.Args[0], space)
	in.d, in.b, in.c = sSink, d.constSlot(1), sZero
	return err
}

// mbarrier runs an mbarrier instruction of thread t (registers r). It
// reports ok false after a fault, and wait true when a test_wait or
// try_wait found its phase incomplete (the thread then yields).
func (m *machine) mbarrier(t *thread, in *inst, r []uint64, pc int) (ok, wait bool) {
	if in.mode == mbarPending {
		r[in.d] = r[in.a] & mbarCountMask
		return true, false
	}
	if in.mode == mbarNop {
		return true, false
	}
	t.pc = pc
	sp := uint8(opLdShared)
	if in.k2 == 1 {
		sp = opLdGeneric
	}
	addr := r[in.a] + uint64(in.imm)
	if in.k2 == 0 {
		addr &= 0xffffffff
	}
	b := m.access(t, in, sp, addr, 8)
	if b == nil {
		return false, false
	}
	w := binary.LittleEndian.Uint64(b)
	pending, expected, tx := w&mbarCountMask, w>>mbarCountBits&mbarCountMask, w>>(2*mbarCountBits)&mbarCountMask
	phase := w & mbarPhase
	count := r[in.b] & 0xffffffff
	fail := func(msg string) (bool, bool) {
		m.fail(t, in, CodeIllegalInstr, 0, msg)
		return false, false
	}
	switch in.mode {
	case mbarInit:
		if count < 1 || count > mbarMaxCount {
			return fail("mbarrier.init count out of range")
		}
		pending, expected, tx, phase = count, count, 0, 0
	case mbarInval:
		pending, expected, tx, phase = 0, 0, 0, 0
	case mbarExpectTx, mbarCompleteTx:
		if in.mode == mbarExpectTx {
			tx += count
		} else if tx -= count; tx > mbarCountMask {
			return fail("mbarrier.complete_tx below zero transaction bytes")
		}
		if tx > mbarCountMask {
			return fail("mbarrier transaction count out of range")
		}
	case mbarArrive, mbarArriveDrop:
		if count < 1 || count > pending {
			return fail("mbarrier arrive count above the pending arrivals")
		}
		if tx += r[in.c] & 0xffffffff; tx > mbarCountMask {
			return fail("mbarrier transaction count out of range")
		}
		if in.mode == mbarArriveDrop {
			if count > expected {
				return fail("mbarrier.arrive_drop count above the expected arrivals")
			}
			expected -= count
		}
		pending -= count
		r[in.d] = phase | pending
		r[sSink] = 0
	case mbarTestWait:
		want := r[in.b]
		var done bool
		if in.b2 == 1 {
			done = phase>>63 != want&1 // the phase of that parity has completed
		} else {
			done = phase != want&mbarPhase
		}
		r[in.d] = b2u(done)
		return true, !done
	}
	if pending == 0 && tx == 0 && (in.mode == mbarArrive || in.mode == mbarArriveDrop || in.mode == mbarCompleteTx) {
		phase ^= mbarPhase
		pending = expected
		if m.races != nil {
			m.races.phase++
		}
		if m.gr != nil {
			m.gr.barrier()
		}
	}
	binary.LittleEndian.PutUint64(b, phase|tx<<(2*mbarCountBits)|expected<<mbarCountBits|pending)
	return true, false
}
