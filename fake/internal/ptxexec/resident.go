package ptxexec

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// Resident blocks. A GPU keeps as many blocks of a launch resident at once
// as its SMs hold (the occupancy: threads, blocks and shared memory per
// SM), and kernels lean on it: a block spins on a flag, a counter or a lock
// that another block of the launch sets (inter-block locks, work queues,
// decoupled look-back scans, persistent kernels, "last block" patterns).
//
// Blocks still run one after another, each to its end (runAlone), while
// none spins: a block whose threads take spinLimit backward branches (or
// sleep in nanosleep) with nothing released is run on by itself while its
// state changes (a long loop, a lock passed between its own threads). When
// it spins in a state it was in at one of its last maxPeriod yields (it
// waits for memory only another block can change), or after aloneLimit
// yields, the launch goes on as a set of resident blocks that take turns
// on one goroutine, in the order they became resident. A turn runs a block
// until it ends or a thread spins residentQuantum backward branches. A
// finished block's place is taken by the next block not yet started, as on
// a GPU. After a round of turns in which no block finished and every
// resident block is back in a state of the last rounds (stuck), or after
// growAfter such rounds, as many blocks again as are resident start (up to
// Launch.Resident), so the set grows only as far as the kernel needs it.
//
// Deadlock. When the set is full (or every block has started) and the
// resident blocks are stuck, no schedule can end the wait: the threads
// read memory that nothing changes (a thread that reads memory another
// thread changed holds the new value in a register), so they would spin
// forever (a lock never unlocked, a flag never set, or a flag that a block
// beyond the resident set would set, which deadlocks on a GPU too). The
// launch fails with CUDA_ERROR_LAUNCH_FAILED and a Fault naming the
// spinning blocks, threads and lines. A wait whose threads change their
// registers every round (a counter of iterations that never stops
// growing) is not one the check can prove; it runs on, as on a GPU.
//
// Everything is counted, never timed, so a launch is deterministic: with
// Launch.Workers > 1 blocks run in parallel until one spins as above; the
// others then finish their blocks (or spin too) and the resident set (the
// spinning blocks in block order) runs on one goroutine as above. Which
// block wins a race between parallel workers (a lock) depends on timing,
// as on a GPU.

// residentQuantum is the spinLimit of a resident block: how many backward
// branches its threads take before the one taking the next yields, so
// that a block spinning among many lets the others run soon.
const residentQuantum = 16

// aloneLimit is how many times a block that spins without repeating its
// state yields before it runs as a resident block (runAlone).
const aloneLimit = 256

// growAfter is how many rounds of turns in which no block finished the
// resident blocks take before more blocks join them.
const growAfter = 4

// maxDeadlockBlocks is how many stuck blocks a deadlock report names.
const maxDeadlockBlocks = 8

// resident is the scheduler of one launch's resident blocks.
type resident struct {
	k      *Kernel
	l      *Launch
	n      int    // threads per block
	blocks uint64 // blocks of the launch
	limit  int    // at most this many blocks resident at once
	next   uint64 // the next block to start
	res    []*machine
	spare  []*machine // machines of finished blocks, to reuse
	grid   []byte     // a cooperative launch's grid workspace, or nil
	// prints holds the resident blocks' states at the end of each of the
	// last rounds (up to maxPeriod) since a block last finished or started.
	prints [][]uint64
}

// maxPeriod is how many rounds back a deadlock check looks for the same
// state: spinning threads whose loops take a few backward branches may
// yield at a different point of the loop each round, in a cycle of a few
// rounds.
const maxPeriod = 16

// residentLimit is how many blocks of the launch may be resident at once.
func (l *Launch) residentLimit(blocks uint64) int {
	r := uint64(l.Resident)
	if r == 0 {
		r = uint64(max(l.SMs, 1)) * 32
	}
	return int(min(r, blocks, 1<<20))
}

// setBlock makes linear block b the machine's current block.
func (m *machine) setBlock(b uint64) {
	g := m.l.Grid
	m.spins = 0
	if m.quantum == 0 {
		m.quantum = spinLimit
	}
	if g[1] == 1 && g[2] == 1 {
		m.block = [3]uint32{uint32(b), 0, 0} // (a 1-D grid: no divisions)
		return
	}
	m.block = [3]uint32{uint32(b % uint64(g[0])), uint32(b / uint64(g[0]) % uint64(g[1])), uint32(b / (uint64(g[0]) * uint64(g[1])))}
}

// start makes block b resident on a spare or new machine.
func (s *resident) start(b uint64) *machine {
	var m *machine
	if n := len(s.spare); n > 0 {
		m, s.spare = s.spare[n-1], s.spare[:n-1]
	} else {
		m = s.k.newMachine(s.l, s.n, nil)
		m.grid = s.grid
	}
	m.quantum = residentQuantum
	m.setBlock(b)
	m.startBlock()
	return m
}

// turn runs the machine's block until it ends (false) or yields with a
// thread spinning (true: it may wait for another block). A block whose
// warps only stopped at shared stores after a barrier (storepause.go)
// goes on at once.
func (m *machine) turn() (spinning bool, err error) {
	for {
		yielded, err := m.stepBlock()
		if err != nil || !yielded {
			m.settleGlobal() // the block ended: its held writes are settled (globalrace.go)
		}
		if err != nil || !yielded || m.spun {
			return yielded, err
		}
	}
}

// runAlone runs the machine's block on its own while it gets on by
// itself: until it ends (false), or (true) its threads spin in a state
// they were in at one of its last maxPeriod yields (they wait for
// something only another block can change), or it has yielded aloneLimit
// times (a wait that reads the clock changes its registers every time).
// A block that only loops long (spinLimit backward branches is no more
// than a few thousand iterations) runs to its end here.
func (m *machine) runAlone() (spinning bool, err error) {
	var seen [maxPeriod]uint64
	for n := 0; ; n++ {
		spinning, err := m.turn()
		if err != nil || !spinning || n == aloneLimit {
			return spinning, err
		}
		p := m.fingerprint()
		if slices.Contains(seen[:min(n, maxPeriod)], p) {
			return true, nil
		}
		seen[n%maxPeriod] = p
	}
}

// run takes turns over the resident blocks until every block of the
// launch has finished, one faults, or they deadlock.
func (s *resident) run() error {
	idle := 0 // rounds since a block last finished or started
	for len(s.res) > 0 {
		finished := false
		for i := 0; i < len(s.res); i++ {
			m := s.res[i]
			yielded, err := m.turn()
			if err != nil {
				return err
			}
			if yielded {
				continue
			}
			finished = true
			s.spare = append(s.spare, m)
			if s.next < s.blocks {
				s.res[i] = s.start(s.next)
				s.next++
				continue
			}
			s.res = slices.Delete(s.res, i, i+1)
			i--
		}
		if finished || len(s.res) == 0 {
			idle, s.prints = 0, nil
			continue
		}
		idle++
		stuck := s.repeated()
		if s.next < s.blocks && len(s.res) < s.limit {
			// The resident blocks are stuck, or no block finished for
			// growAfter rounds: as many blocks again become resident.
			if !stuck && idle < growAfter {
				continue
			}
			add := min(uint64(len(s.res)), uint64(s.limit-len(s.res)), s.blocks-s.next)
			for range add {
				s.res = append(s.res, s.start(s.next))
				s.next++
			}
			idle, s.prints = 0, nil
			continue
		}
		if stuck {
			return s.deadlock()
		}
	}
	return nil
}

// repeated reports whether every resident block is in the state it was in
// at the end of one of the last maxPeriod rounds, and records this one.
func (s *resident) repeated() bool {
	prints := make([]uint64, len(s.res))
	for i, m := range s.res {
		prints[i] = m.fingerprint()
	}
	seen := false
	for _, p := range s.prints {
		seen = seen || slices.Equal(prints, p)
	}
	if len(s.prints) == maxPeriod {
		s.prints = slices.Delete(s.prints, 0, 1)
	}
	s.prints = append(s.prints, prints)
	return seen
}

// deadlock is the Fault of a resident set that no schedule can move on.
func (s *resident) deadlock() error {
	stuck := slices.Clone(s.res)
	slices.SortFunc(stuck, func(a, b *machine) int {
		return cmpUint64(linear(a.block, s.l.Grid), linear(b.block, s.l.Grid))
	})
	var f *Fault
	var where []string
	for i, m := range stuck {
		if i == maxDeadlockBlocks {
			where = append(where, fmt.Sprintf("and %d more", len(stuck)-i))
			break
		}
		g := m.stuckAt()
		where = append(where, fmt.Sprintf("block %v thread %v at %s", g.Block, g.Thread, g.at()))
		if f == nil {
			f = g
		}
	}
	why := "every resident block spins on memory that no resident thread can change"
	if s.next < s.blocks {
		why += fmt.Sprintf(" (the device holds %d blocks of this launch at once; %d of its %d blocks never started)", s.limit, s.blocks-s.next, s.blocks)
	}
	f.Msg = "deadlock: " + why
	if len(stuck) > 1 {
		f.Msg += ": " + strings.Join(where, "; ")
	}
	return f
}

func cmpUint64(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// at is where a fault happened, as Error says it.
func (f *Fault) at() string {
	s := fmt.Sprintf("ptx line %d", f.Line)
	if f.File != "" {
		s += fmt.Sprintf(" (%s:%d)", f.File, f.FileLine)
	}
	return s + ": " + f.Instr
}

// stuckAt names the first spinning thread of a block that yielded (else
// the first waiting one) and the instruction it spins at.
func (m *machine) stuckAt() *Fault {
	var t *thread
	for i := range m.threads {
		if m.threads[i].state == tYield {
			t = &m.threads[i]
			break
		}
	}
	if t == nil {
		for w := range m.warps {
			if wr := &m.warps[w]; !wr.exited && !wr.atBarrier {
				t = &m.threads[w*warpSize]
				break
			}
		}
	}
	if t == nil {
		t = &m.threads[0]
	}
	pc := min(max(t.pc, 0), len(t.fn.stmts)-1)
	st := t.fn.stmts[pc]
	file, line := m.k.prog.source(st)
	return &Fault{Code: CodeLaunchFailed, Line: int(st.Line), Instr: st.String(), File: file, FileLine: line, Block: m.block, Thread: t.idx}
}

// fingerprint hashes the state of the machine's block that decides what
// its threads do next: each thread's pc, state, call depth and registers,
// the barriers' counts and the machine's spin count (not memory: a thread
// that reads memory another changed holds the new value in a register).
func (m *machine) fingerprint() uint64 {
	h := uint64(14695981039346656037)
	mix := func(v uint64) {
		h ^= v
		h *= 1099511628211
		h ^= h >> 29
	}
	mix(uint64(m.spins))
	mix(b2u(m.phase == m.blockPhase))
	for _, b := range m.barriers {
		mix(uint64(b.arrived)<<32 | uint64(b.count))
	}
	ns := m.k.fn.nslots
	for w := range m.warps {
		wr := &m.warps[w]
		mix(b2u(wr.exited)<<4 | b2u(wr.atBarrier)<<3 | b2u(wr.resume)<<2 | b2u(wr.fresh)<<1 | b2u(wr.paused == m.phase))
		if wr.exited && !wr.fresh {
			continue
		}
		if wr.atBarrier {
			mix(wr.barrierID)
			mix(uint64(wr.barrierPC))
		}
		lo := w * warpSize
		ts := m.threads[lo:min(lo+warpSize, len(m.threads))]
		if wr.inSoA {
			for _, v := range wr.soa[:ns*warpSize] {
				mix(v)
			}
		}
		for i := range ts {
			t := &ts[i]
			mix(uint64(t.pc)<<8 | uint64(t.state))
			if t.state == tExited || wr.inSoA {
				continue
			}
			mix(uint64(len(t.frames)))
			for _, v := range t.regs {
				mix(v)
			}
		}
	}
	return h
}

// runSerial runs the launch's blocks one after another on one machine
// until one yields, then as resident blocks.
func (s *resident) runSerial() error {
	m := s.k.newMachine(s.l, s.n, nil)
	plain := uint64(0) // the blocks before plain run one by one (a batch declined them)
	for s.next < s.blocks {
		if s.next >= plain {
			if k := m.batchSize(s.blocks-s.next, 1); k > 0 {
				if m.runBatch(s.next, k) {
					s.next += uint64(k)
					continue
				}
				plain = s.next + uint64(k)
			}
		}
		m.setBlock(s.next)
		s.next++
		m.startBlock()
		yielded, err := m.runAlone()
		if err != nil {
			return err
		}
		if yielded {
			m.quantum = residentQuantum
			s.res = append(s.res, m)
			return s.run()
		}
	}
	return nil
}

// runParallel runs blocks on parallel workers, each taking the next block
// not yet taken, until every block has run or one yields: the workers then
// stop taking blocks, and the blocks that yielded run on as resident
// blocks. The fault of the lowest faulting block wins.
func (s *resident) runParallel(workers int) error {
	var next atomic.Uint64
	next.Store(s.next)
	var stop atomic.Bool
	var atomMu, mu sync.Mutex
	var wg sync.WaitGroup
	var parked []*machine
	faults := make([]*Fault, workers)
	for w := range faults {
		m := s.k.newMachine(s.l, s.n, &atomMu)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				// A batch's blocks are taken together; they run one by
				// one where the batch declines (none of them yields: a
				// block program never does, see stepBlock).
				k := uint64(max(m.batchSize(s.blocks-min(next.Load(), s.blocks), workers), 1))
				b := next.Add(k) - k
				if b >= s.blocks {
					return
				}
				end := min(b+k, s.blocks)
				if end-b > 1 && m.runBatch(b, int(end-b)) {
					continue
				}
				// All of them, whatever stop says: a higher block's
				// fault must not keep a lower one from its turn.
				for ; b < end; b++ {
					m.setBlock(b)
					m.startBlock()
					yielded, err := m.runAlone()
					if err != nil {
						faults[w] = err.(*Fault)
						stop.Store(true)
						return
					}
					if yielded {
						mu.Lock()
						parked = append(parked, m)
						mu.Unlock()
						stop.Store(true)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	var first *Fault
	for _, f := range faults {
		if f != nil && (first == nil || linear(f.Block, s.l.Grid) < linear(first.Block, s.l.Grid)) {
			first = f
		}
	}
	if first != nil {
		return first
	}
	if len(parked) == 0 {
		return nil
	}
	slices.SortFunc(parked, func(a, b *machine) int {
		return cmpUint64(linear(a.block, s.l.Grid), linear(b.block, s.l.Grid))
	})
	for _, m := range parked {
		m.quantum = residentQuantum
	}
	s.res = parked
	s.next = min(next.Load(), s.blocks)
	return s.run()
}
