package ptxexec

import (
	"encoding/binary"
	"io"

	"fmt"
	"github.com/nocgo/cuda/fake/internal/fpu"
	"github.com/nocgo/cuda/fake/internal/ptxexec/lanes"
	"math"
	"math/bits"
	"sync"
	"time"
)

// Memory is the device memory a launch reads and writes: the fake's
// allocations. Lookup returns the allocation holding addr, its base
// address and its bytes; ok is false for an address in no allocation.
// The interpreter caches the last allocation it found, so Lookup is not
// called per access.
type Memory interface {
	Lookup(addr uint64) (base uint64, data []byte, ok bool)
}

// Launch is one kernel launch.
type Launch struct {
	Grid, Block [3]uint32
	// DynShared is the dynamic shared memory in bytes (cuLaunchKernel's
	// sharedMemBytes).
	DynShared uint32
	// Params is the packed parameter buffer, Kernel.ParamSize bytes.
	Params []byte
	Mem    Memory
	// SMs is what %nsmid reports; blocks report %smid = block index mod SMs.
	SMs int
	// Printf receives what printf in a kernel prints (nil: nothing).
	Printf io.Writer
	// Workers is how many blocks run at once (0 or 1: one after another,
	// deterministic). With more, blocks run in parallel goroutines, global
	// atomics stay atomic, and the fault of the lowest-numbered faulting
	// block is reported.
	Workers int
	// Observe, when set, is told of every access to global memory (see
	// Observer).
	Observe Observer
	// Resident is how many blocks of the launch the device keeps
	// resident at once (the occupancy of the kernel's block size and
	// shared memory on every SM); 0 means 32 per SM. Blocks that spin on
	// memory another block sets run as a set of at most this many resident
	// blocks (resident.go); a wait that only a block beyond them could end
	// is a deadlock, as on a GPU.
	Resident int
	// Cooperative is a cooperative launch (cuLaunchCooperativeKernel, or
	// the cooperative launch attribute): every block is resident at once,
	// so blocks may wait for each other (cooperative_groups' grid.sync),
	// and %envreg1:%envreg2 give the grid workspace grid.sync counts in.
	// The blocks then take turns on one goroutine (Workers is not used):
	// a block runs until all its threads wait, exit, or spin (a thread
	// that has taken many backward branches lets the other blocks run).
	Cooperative bool
	// SharedRaces asks for in-kernel shared-memory race checks (see
	// SharedRaceObserver): reported to Observe when it implements
	// SharedRaceObserver. Off, they cost one comparison per shared access.
	SharedRaces bool
	// GlobalRaces asks for checks of races between the launch's threads
	// on global memory and of reads of what the launch had not yet
	// written (see GlobalRaceObserver, Access.Unwritten): reported to
	// Observe when it implements GlobalRaceObserver.
	GlobalRaces bool

	gr *globalRaces // Run's copy: the launch's global race checks, or nil
	// scheduler runs the launch on the general scheduler even where the
	// kernel has a block program (the tests compare the two).
	scheduler bool
}

// CUDA error numbers of the faults a launch may end with.
const (
	CodeIllegalAddress    = 700 // CUDA_ERROR_ILLEGAL_ADDRESS
	CodeIllegalInstr      = 715 // CUDA_ERROR_ILLEGAL_INSTRUCTION
	CodeMisalignedAddress = 716 // CUDA_ERROR_MISALIGNED_ADDRESS
	CodeLaunchFailed      = 719 // CUDA_ERROR_LAUNCH_FAILED
	CodeAssert            = 710 // CUDA_ERROR_ASSERT
)

// Fault is how a launch failed: the CUDA error number, and where.
type Fault struct {
	Code  int
	Line  int    // PTX line of the faulting instruction
	Instr string // the instruction
	// File and FileLine are the CUDA C source line of the instruction,
	// from the PTX's .file and .loc directives (NVRTC's -lineinfo or -G);
	// "" and 0 without them.
	File     string
	FileLine int
	Addr     uint64 // the address, for memory faults
	Block    [3]uint32
	Thread   [3]uint32
	Msg      string
}

// Error describes the fault.
func (f *Fault) Error() string {
	at := fmt.Sprintf("ptx line %d", f.Line)
	if f.File != "" {
		at += fmt.Sprintf(" (%s:%d)", f.File, f.FileLine)
	}
	s := fmt.Sprintf("%s: %s: %s", at, f.Instr, f.Msg)
	if f.Addr != 0 || f.Code == CodeIllegalAddress || f.Code == CodeMisalignedAddress {
		s += fmt.Sprintf(" at address 0x%x", f.Addr)
	}
	return s + fmt.Sprintf(" (block %v, thread %v)", f.Block, f.Thread)
}

// Thread states.
const (
	tRunning = iota
	tBarrier // waiting at bar.sync
	tWarp    // waiting at a warp collective
	tYield   // spinning in a cooperative launch: runs again when the other blocks have had their turn
	tExited
)

// thread is one CUDA thread: where it is, its registers, its local memory
// and its call stack.
//
// The fields every block's set-up and every scheduling pass read come
// first, so that they share the struct's first cache line.
type thread struct {
	fn     *function
	pc     int
	state  uint8
	warp   *warpRegs // its warp's registers in lockstep
	sp     int       // end of the current frame in local
	frames []frame
	regs   []uint64
	lane   int
	id     int // linear index in the block
	idx    [3]uint32
	local  []byte
	pool   [][]uint64 // register files, one per call depth
}

// frame is a caller's state saved by call.
type frame struct {
	fn   *function
	pc   int
	regs []uint64
	site int
	base int
}

// Per-thread limits, so that hostile or runaway code fails the launch
// instead of exhausting the host: local memory (the stack of .local
// frames and call parameters), register slots of one function, and the
// register slots of all frames of a call stack.
const (
	maxLocal     = 64 << 10
	maxSlots     = 1 << 14
	maxStackRegs = 1 << 15
	maxDepth     = 1024
)

type machine struct {
	k        *Kernel
	l        *Launch
	threads  []thread
	nt       int // the threads forms range over: len(threads), or a batch's (runBatch)
	shared   []byte
	cache    [4]span // recently used allocations
	next     int     // the cache entry to replace next
	fault    *Fault
	block    [3]uint32
	start    time.Time
	cs       []callSite
	tmpl     []uint64    // the entry's initial slots for the current block
	atomMu   *sync.Mutex // with parallel workers: held by global atomics
	barriers [numBarriers]barrierState
	obs      Observer // l.Observe
	slab     []uint64 // register files not yet handed to threads
	warps    []warpRegs
	grid     []byte      // a cooperative launch's grid workspace (nil otherwise)
	spins    int         // backward branches taken since the last yield
	quantum  int         // spins before a yield: spinLimit, or residentQuantum (resident.go)
	races    *raceState  // shared-memory race checks, or nil
	gr       *blockRaces // global-memory race checks, or nil
	yielded  bool        // the last stepBlock left threads spinning (tYield)
	// spun: a thread yielded in the last stepBlock for having taken
	// spinLimit backward branches (it may wait for another block), not
	// only at a shared store after a barrier (storepause.go).
	spun bool

	// phase counts block starts and completed barriers; blockPhase is its
	// value at the block's start (storepause.go).
	phase, blockPhase uint32

	// bp is the kernel's block program when the launch runs on it
	// (compile.go, blockexec.go); hoisted is set once its block-invariant
	// instructions have run; pend and wait are runBlock's groups.
	bp         *blockProgram
	hoisted    bool
	pend, wait []blockGroup
	ur         []uint64 // the block's uniform values, by slot (blockexec.go)
	forms      []form   // the block's affine values (affine.go), when aff
	okind      []int32  // bp.okind, one load nearer (operand)
	aff        bool
	soas       [][]uint64
	tss        [][]thread // each warp's registers and threads, for runBlock
	// soaFile holds the warps' registers (warpRegs.soa) side by side in
	// warp order, soaFree the part not yet handed out (lockstep.go's
	// newSoA); file is soaFile as lanes.Warps when every warp's registers
	// are there (runBlock: an instruction over all warps in one call),
	// N 0 otherwise.
	soaFile, soaFree []uint64
	file             lanes.Warps
	// ifRest is runWhole's group of the threads that run an if's body.
	ifRest blockMask
	// fusedBuf is runFused's buffers (fused.go), kept from window to
	// window.
	fusedBuf []byte
}

// Run executes the kernel over the launch's grid, blocks one after
// another in x, y, z order. It returns nil or a *Fault.
func (k *Kernel) Run(l *Launch) error {
	if !k.prog.bound && len(k.prog.relocs) > 0 {
		return &Fault{Code: CodeLaunchFailed, Msg: "the module's globals are not bound"}
	}
	if len(l.Params) < k.ParamSize {
		return &Fault{Code: CodeLaunchFailed, Msg: "parameter buffer too short"}
	}
	n := int(l.Block[0]) * int(l.Block[1]) * int(l.Block[2])
	if n <= 0 || n > 1024 {
		return &Fault{Code: CodeLaunchFailed, Msg: "bad block size"}
	}
	blocks := uint64(l.Grid[0]) * uint64(l.Grid[1]) * uint64(l.Grid[2])
	if err := k.Runnable(l.Grid, l.Block); err != nil {
		return &Fault{Code: CodeLaunchFailed, Msg: err.Error()}
	}
	if l.GlobalRaces {
		lc := *l
		lc.gr = newGlobalRaces(k, &lc, n)
		defer lc.gr.free()
		l = &lc
	}
	if k.noEffect() {
		return nil // no block can do anything a user could see (noeffect.go)
	}
	s := &resident{k: k, l: l, n: n, blocks: blocks, limit: l.residentLimit(blocks)}
	if l.Cooperative {
		return s.runCooperative()
	}
	if workers := min(max(l.Workers, 1), s.limit); workers > 1 && blocks > 1 {
		return s.runParallel(workers)
	}
	return s.runSerial()
}

func linear(b, grid [3]uint32) uint64 {
	return (uint64(b[2])*uint64(grid[1])+uint64(b[1]))*uint64(grid[0]) + uint64(b[0])
}

func (k *Kernel) newMachine(l *Launch, n int, atomMu *sync.Mutex) *machine {
	m := &machine{k: k, l: l, threads: make([]thread, n), shared: make([]byte, k.sharedBase+int(l.DynShared)+reservedShared),
		start: time.Now(), cs: k.prog.callSites, atomMu: atomMu, obs: l.Observe, warps: make([]warpRegs, (n+warpSize-1)/warpSize)}
	m.nt = n
	m.races = newRaceState(l, len(m.shared), n)
	m.gr = l.gr.newBlock(n)
	m.bp = k.blockProgram(l)
	f := k.fn
	m.tmpl = make([]uint64, f.nslots)
	copy(m.tmpl, f.init)
	for _, p := range f.paramSlots {
		m.tmpl[p.slot] = extend(loadLE(l.Params[p.off:], p.in.size), &p.in)
	}
	return m
}

// blockTemplate sets m.tmpl to the entry's initial slots with the
// special registers that are the same for every thread of the block.
func (m *machine) blockTemplate() {
	l := m.l
	r := m.tmpl
	r[sNtidX], r[sNtidY], r[sNtidZ] = uint64(l.Block[0]), uint64(l.Block[1]), uint64(l.Block[2])
	r[sCtaidX], r[sCtaidY], r[sCtaidZ] = uint64(m.block[0]), uint64(m.block[1]), uint64(m.block[2])
	r[sNctaidX], r[sNctaidY], r[sNctaidZ] = uint64(l.Grid[0]), uint64(l.Grid[1]), uint64(l.Grid[2])
	r[sNwarpid] = uint64((len(m.threads) + 31) / 32)
	sms := max(l.SMs, 1)
	lin := (uint64(m.block[2])*uint64(l.Grid[1])+uint64(m.block[1]))*uint64(l.Grid[0]) + uint64(m.block[0])
	r[sSmid] = lin % uint64(sms)
	r[sNsmid] = uint64(sms)
	r[sDynSmem] = uint64(l.DynShared)
	user := uint64(len(m.shared) - reservedShared) // the kernel's own: static and dynamic
	r[sTotalSmem] = user
	r[sResSmemBegin], r[sResSmemEnd], r[sResSmemCap] = user, user+reservedShared, reservedShared
	r[sResSmem1] = user + reservedShared/2
	r[sFrame] = 0
	if m.grid != nil {
		r[sEnvreg1], r[sEnvreg2] = gridWindow>>32, gridWindow&math.MaxUint32
	}
	for _, a := range m.k.fn.aliases {
		if a.special >= sNtidX {
			r[a.slot] = r[a.special]
		}
	}
}

// restart puts thread t at the start of the entry, with no call frames
// (a thread may have exited inside a call).
func (m *machine) restart(t *thread) {
	f := m.k.fn
	t.pc, t.state = 0, tRunning
	if t.fn != f || len(t.frames) != 0 || t.sp != f.frame {
		t.fn, t.frames, t.sp = f, t.frames[:0], f.frame
	}
}

func (m *machine) initThread(t *thread, i int) {
	l := m.l
	f := m.k.fn
	m.restart(t)
	if t.warp != nil && t.warp.inSoA {
		return // blockLanes sets the block's values
	}
	if t.regs != nil {
		// The thread's registers from the launch's previous block: the
		// constants, parameters and per-thread specials are still right
		// (nothing writes them); only the block's own values change.
		// Other registers keep the previous block's values, as PTX
		// registers are undefined until written. (A thread that exited
		// inside a call left t.regs at the callee's: pool[0] is the
		// entry's.)
		t.regs = t.pool[0][:f.nslots]
		r := t.regs
		r[sCtaidX], r[sCtaidY], r[sCtaidZ] = m.tmpl[sCtaidX], m.tmpl[sCtaidY], m.tmpl[sCtaidZ]
		r[sSmid] = m.tmpl[sSmid]
		for _, a := range f.aliases {
			if a.special >= sCtaidX && a.special <= sCtaidZ {
				r[a.slot] = r[a.special]
			}
		}
		return
	}
	if len(t.pool) == 0 {
		// The entry's registers of a warp's threads lie side by side.
		if len(m.slab) < f.nslots {
			m.slab = make([]uint64, f.nslots*warpSize)
		}
		t.pool = append(t.pool, m.slab[:f.nslots:f.nslots])
		m.slab = m.slab[f.nslots:]
	}
	t.regs = t.pool[0][:f.nslots]
	t.warp = &m.warps[i/warpSize]
	t.id = i
	copy(t.regs, m.tmpl)
	r := t.regs
	bx, by := int(l.Block[0]), int(l.Block[1])
	if by == 1 && l.Block[2] == 1 {
		t.idx = [3]uint32{uint32(i), 0, 0}
	} else {
		t.idx = [3]uint32{uint32(i % bx), uint32(i / bx % by), uint32(i / (bx * by))}
	}
	t.lane = i % 32
	r[sTidX], r[sTidY], r[sTidZ] = uint64(t.idx[0]), uint64(t.idx[1]), uint64(t.idx[2])
	for _, a := range f.aliases {
		if a.special <= sTidZ {
			r[a.slot] = r[a.special]
		}
	}
	r[sLaneid] = uint64(t.lane)
	r[sWarpid] = uint64(i / 32)
	bit := uint64(1) << t.lane
	r[sLanemaskEq] = bit
	r[sLanemaskLt] = bit - 1
	r[sLanemaskLe] = bit<<1 - 1
	r[sLanemaskGt] = ^(bit<<1 - 1) & math.MaxUint32
	r[sLanemaskGe] = ^(bit - 1) & math.MaxUint32
	if len(t.local) < f.frame {
		t.local = make([]byte, f.frame)
	}
}

// startBlock sets up the threads, shared memory and barriers of block
// m.block.
//
// A warp still in lockstep from the previous block keeps its registers
// in place: it is marked fresh, and runLockstep restarts its threads as
// it starts, while their structs are in cache, instead of one more pass
// over all threads here.
func (m *machine) startBlock() {
	m.blockTemplate()
	m.yielded = false
	for w := range m.warps {
		if wr := &m.warps[w]; wr.inSoA {
			wr.fresh = true
			m.blockLanes(wr)
			continue
		}
		lo := w * warpSize
		ts := m.threads[lo:min(lo+warpSize, len(m.threads))]
		for i := range ts {
			m.initThread(&ts[i], lo+i)
		}
	}
	if m.bp == nil || m.bp.shared {
		clear(m.shared) // (a block program that never reads shared memory needs no zeros)
	}
	m.phase++
	m.blockPhase = m.phase
	m.barriers = [numBarriers]barrierState{}
	for w := range m.warps {
		m.warps[w].atBarrier, m.warps[w].resume = false, false
	}
	if m.races != nil {
		m.races.startBlock()
	}
	if m.gr != nil {
		m.gr.start(uint32(linear(m.block, m.l.Grid)))
	}
	for w := range m.warps {
		if wr := &m.warps[w]; !wr.inSoA {
			lo := w * warpSize
			if ts := m.threads[lo:min(lo+warpSize, len(m.threads))]; m.canLockstep(ts) {
				m.toSoA(wr, ts)
			}
		}
	}
}

// stepBlock runs the block's threads until all have exited (false), or
// (in a cooperative launch) those that have not wait for threads that
// spin (true: call again after the other blocks' turn).
func (m *machine) stepBlock() (yielded bool, err error) {
	m.spun = false
	if m.bp != nil {
		return false, m.runBlock()
	}
	if m.yielded {
		// Only a call that returned true leaves threads spinning.
		for i := range m.threads {
			if m.threads[i].state == tYield {
				m.threads[i].state = tRunning
			}
		}
		m.yielded = false
	}
	for {
		// The threads' states are counted warp by warp as each warp
		// stops (nothing a warp does changes another warp's threads'
		// states before releaseBarriers below).
		live, waiting, spinning := 0, 0, 0
		for w := range m.warps {
			lo := w * warpSize
			ts := m.threads[lo:min(lo+warpSize, len(m.threads))]
			wr := &m.warps[w]
			if !m.runWarp(wr, ts) {
				return false, m.fault
			}
			l, wt, sp := m.countWarp(wr, ts)
			live, waiting, spinning = live+l, waiting+wt, spinning+sp
		}
		if waiting == 0 && spinning == 0 {
			m.settleWrites()
			return false, nil
		}
		released := m.releaseBarriers(live)
		for w := 0; w*32 < len(m.threads); w++ {
			lo := w * warpSize
			ts := m.threads[lo:min(lo+warpSize, len(m.threads))]
			if !m.warps[w].atCollective {
				continue // nothing to resolve (releaseBarriers releases no lane to one)
			}
			m.toAoS(&m.warps[w], ts)
			if m.resolveWarp(w) {
				released = true
			}
			if m.fault != nil {
				return false, m.fault
			}
		}
		if !released {
			if spinning > 0 {
				m.yielded = true
				return true, nil
			}
			return false, m.deadlock()
		}
	}
}

// runWarp runs warp wr (threads ts) until each of its threads waits or
// exits: in lockstep where it can, else thread by thread. A warp that
// exited or waits at a barrier as one has nothing to run. It reports
// false after a fault.
func (m *machine) runWarp(wr *warpRegs, ts []thread) bool {
	if wr.exited && !wr.fresh || wr.atBarrier {
		return true
	}
	if !wr.inSoA && m.canLockstep(ts) {
		m.toSoA(wr, ts)
	}
	if wr.inSoA && !m.runLockstep(wr, ts) {
		return m.fault == nil
	}
	if m.fault != nil {
		return false
	}
	m.toAoS(wr, ts)
	for i := range ts {
		if t := &ts[i]; t.state == tRunning {
			if m.run(t); m.fault != nil {
				return false
			}
		}
	}
	return true
}

// countWarp counts warp wr's threads ts as countStates does, from the
// warp's own state where its threads exited or wait at a barrier as one,
// and records whether a lane waits at a warp collective.
func (m *machine) countWarp(wr *warpRegs, ts []thread) (live, waiting, spinning int) {
	wr.atCollective = false
	switch {
	case wr.exited:
		return 0, 0, 0
	case wr.atBarrier:
		return len(ts), len(ts), 0
	}
	live, waiting, spinning, c := countStates(ts)
	wr.atCollective = c > 0
	return live, waiting, spinning
}

// countStates counts the threads of ts that have not exited (live),
// those waiting at a barrier or warp collective (of which collective at
// a warp collective), and those spinning.
func countStates(ts []thread) (live, waiting, spinning, collective int) {
	for i := range ts {
		switch ts[i].state {
		case tBarrier:
			waiting++
			live++
		case tWarp:
			waiting++
			collective++
			live++
		case tYield:
			spinning++
			live++
		case tRunning:
			live++
		}
	}
	return live, waiting, spinning, collective
}

func (m *machine) deadlock() error {
	// Warps that wait at a barrier as one: mark their threads.
	for w := range m.warps {
		if wr := &m.warps[w]; wr.atBarrier {
			ts := m.threads[w*warpSize : (w+1)*warpSize]
			for i := range ts {
				ts[i].pc, ts[i].state = wr.barrierPC, tBarrier
			}
		}
	}
	// The first thread at a warp collective, else the first at a barrier.
	var t *thread
	for i := range m.threads {
		if m.threads[i].state == tWarp {
			t = &m.threads[i]
			break
		}
		if t == nil && m.threads[i].state == tBarrier {
			t = &m.threads[i]
		}
	}
	if t == nil {
		t = &m.threads[0]
	}
	pc := max(t.pc-1, 0)
	s := t.fn.stmts[pc]
	file, line := m.k.prog.source(s)
	return &Fault{Code: CodeLaunchFailed, Line: int(s.Line), Instr: s.String(), File: file, FileLine: line, Block: m.block, Thread: t.idx,
		Msg: "deadlock: threads wait at barriers and warp collectives that can never complete"}
}

// resolveWarp completes the warp collectives of warp w whose member
// lanes have all arrived. It reports whether it released any thread.
func (m *machine) resolveWarp(w int) bool {
	lo := w * 32
	hi := min(lo+32, len(m.threads))
	ts := m.threads[lo:hi]
	released := false
	for i := range ts {
		t := &ts[i]
		if t.state != tWarp {
			continue
		}
		in := &t.fn.code[t.pc-1]
		var member uint32
		switch in.op {
		case opShfl:
			member = uint32(t.regs[in.v[1]])
		case opVote, opRedux, opMatch:
			member = uint32(t.regs[in.b])
		case opWarpSync:
			member = uint32(t.regs[in.a])
		case opActivemask:
			// The lanes that reached this activemask: every other lane
			// has exited or waits elsewhere.
			for j := range ts {
				if ts[j].state == tWarp && ts[j].fn == t.fn && ts[j].pc == t.pc {
					member |= 1 << j
				}
			}
		}
		if member&(1<<t.lane) == 0 {
			m.fail(t, in, CodeIllegalInstr, 0, "the thread is not in the member mask")
			return false
		}
		// Every lane of the mask that exists and has not exited must be
		// waiting at this same instruction.
		group := uint32(0)
		ready := true
		for j := range ts {
			if member&(1<<j) == 0 || ts[j].state == tExited {
				continue
			}
			u := &ts[j]
			if u.state != tWarp || u.fn != t.fn || u.pc != t.pc {
				ready = false
				break
			}
			group |= 1 << j
		}
		if !ready {
			continue
		}
		m.collective(ts, in, group)
		for j := range ts {
			if group&(1<<j) != 0 {
				ts[j].state = tRunning
			}
		}
		released = true
	}
	return released
}

// collective computes a shfl, vote or warp sync for the lanes of group.
func (m *machine) collective(ts []thread, in *inst, group uint32) {
	if m.races != nil {
		m.races.warpSync[ts[0].id/warpSize]++
	}
	if m.gr != nil {
		m.gr.collective(ts)
	}
	switch in.op {
	case opShfl:
		var vals, preds [32]uint64
		for j := range ts {
			if group&(1<<j) == 0 {
				continue
			}
			r := ts[j].regs
			lane := j
			b := int(r[in.b] & 31)
			c := uint32(r[in.v[0]])
			segmask := int(c>>8) & 31
			clamp := int(c & 31)
			maxLane := lane&segmask | clamp&^segmask
			minLane := lane & segmask
			var src int
			var ok bool
			switch in.mode {
			case shflUp:
				src = lane - b
				ok = src >= maxLane
			case shflDown:
				src = lane + b
				ok = src <= maxLane
			case shflBfly:
				src = lane ^ b
				ok = src <= maxLane
			case shflIdx:
				src = minLane | b&^segmask
				ok = src <= maxLane
			}
			// Out of the segment: the lane's own value (PTX). A source
			// lane in it that takes no part (outside the member mask,
			// exited, or no thread at all in a block's last warp): 0, as
			// the H200 gives (CUDA leaves it undefined; NVIDIA's reduction
			// sample relies on it in reduce7 and on blocks under 32
			// threads).
			v := r[in.a]
			if ok {
				v = 0
				if src < len(ts) && group&(1<<src) != 0 {
					v = ts[src].regs[in.a]
				}
			}
			vals[j] = v & math.MaxUint32
			if ok {
				preds[j] = 1
			}
		}
		for j := range ts {
			if group&(1<<j) != 0 {
				ts[j].regs[in.d] = vals[j]
				ts[j].regs[in.c] = preds[j]
			}
		}
		for j := range ts {
			ts[j].regs[sSink] = 0
		}
	case opActivemask:
		for j := range ts {
			if group&(1<<j) != 0 {
				ts[j].regs[in.d] = uint64(group)
			}
		}
	case opRedux:
		v := reduxResult(ts, in, group)
		for j := range ts {
			if group&(1<<j) != 0 {
				ts[j].regs[in.d] = v
			}
		}
	case opMatch:
		matchResults(ts, in, group)
	case opVote:
		var ballot uint32
		for j := range ts {
			if group&(1<<j) != 0 && ts[j].regs[in.a] != 0 {
				ballot |= 1 << j
			}
		}
		var v uint64
		switch in.mode {
		case voteAll:
			v = b2u(ballot == group)
		case voteAny:
			v = b2u(ballot != 0)
		case voteUni:
			v = b2u(ballot == group || ballot == 0)
		case voteBallot:
			v = uint64(ballot)
		}
		for j := range ts {
			if group&(1<<j) != 0 {
				ts[j].regs[in.d] = v
			}
		}
	}
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// fail records the launch's fault at instruction in of thread t.
func (m *machine) fail(t *thread, in *inst, code int, addr uint64, msg string) {
	if m.fault != nil {
		return
	}
	pc := t.pc - 1
	if pc < 0 || pc >= len(t.fn.stmts) {
		pc = 0
	}
	s := t.fn.stmts[pc]
	file, line := m.k.prog.source(s)
	m.fault = &Fault{Code: code, Line: int(s.Line), Instr: s.String(), File: file, FileLine: line, Addr: addr, Block: m.block, Thread: t.idx, Msg: msg}
}

// span is one allocation of device memory.
type span struct {
	base uint64
	data []byte
}

// global returns n bytes of device memory at addr, or nil.
func (m *machine) global(addr, n uint64) []byte {
	for i := range m.cache {
		c := &m.cache[i]
		off := addr - c.base
		if off < uint64(len(c.data)) && uint64(len(c.data))-off >= n {
			return c.data[off : off+n : off+n]
		}
	}
	base, data, ok := m.l.Mem.Lookup(addr)
	if !ok {
		if m.grid == nil || addr-gridWindow >= uint64(len(m.grid)) {
			return nil
		}
		base, data = gridWindow, m.grid
	}
	m.cache[m.next] = span{base, data}
	m.next = (m.next + 1) % len(m.cache)
	off := addr - base
	if off >= uint64(len(data)) || uint64(len(data))-off < n {
		return nil
	}
	return data[off : off+n : off+n]
}

// span returns the n bytes at addr in the access's space, or nil after
// recording a fault.
func (m *machine) access(t *thread, in *inst, space uint8, addr, n uint64) []byte {
	if addr&(n-1) != 0 && n&(n-1) == 0 {
		m.fail(t, in, CodeMisalignedAddress, addr, "misaligned access")
		return nil
	}
	var b []byte
	switch space {
	case opLdGlobal, opStGlobal:
		b = m.global(addr, n)
		if b != nil && m.obs != nil {
			m.observe(t, in, addr, n)
		}
	case opLdShared, opStShared:
		if addr < uint64(len(m.shared)) && uint64(len(m.shared))-addr >= n {
			b = m.shared[addr : addr+n]
			if m.races != nil {
				m.sharedAccess(t, in, space, addr, n)
			}
		}
	case opLdLocal, opStLocal:
		if addr < uint64(len(t.local)) && uint64(len(t.local))-addr >= n {
			b = t.local[addr : addr+n]
		}
	case opLdParam:
		if addr < uint64(len(m.l.Params)) && uint64(len(m.l.Params))-addr >= n {
			b = m.l.Params[addr : addr+n]
		}
	default: // generic
		switch {
		case addr-sharedWindow < windowSize:
			return m.access(t, in, opLdShared, addr-sharedWindow, n)
		case addr-localWindow < windowSize:
			return m.access(t, in, opLdLocal, addr-localWindow, n)
		}
		b = m.global(addr, n)
		if b != nil && m.obs != nil {
			m.observe(t, in, addr, n)
		}
	}
	if b == nil {
		m.fail(t, in, CodeIllegalAddress, addr, "out-of-bounds access")
	}
	return b
}

func loadLE(b []byte, size uint8) uint64 {
	switch size {
	case 1:
		return uint64(b[0])
	case 2:
		return uint64(binary.LittleEndian.Uint16(b))
	case 4:
		return uint64(binary.LittleEndian.Uint32(b))
	}
	return binary.LittleEndian.Uint64(b)
}

func store(b []byte, size uint8, v uint64) {
	switch size {
	case 1:
		b[0] = byte(v)
	case 2:
		binary.LittleEndian.PutUint16(b, uint16(v))
	case 4:
		binary.LittleEndian.PutUint32(b, uint32(v))
	default:
		binary.LittleEndian.PutUint64(b, v)
	}
}

// extend sign-extends a loaded value of a signed type below 32 bits.
func extend(v uint64, in *inst) uint64 {
	if in.kind == kS && in.bits < 32 {
		sh := 64 - uint(in.bits)
		return uint64(int64(v<<sh)>>sh) & math.MaxUint32
	}
	return v
}

func f32(v uint64) float32  { return math.Float32frombits(uint32(v)) }
func u32f(f float32) uint64 { return uint64(math.Float32bits(f)) }
func f64(v uint64) float64  { return math.Float64frombits(v) }
func u64f(f float64) uint64 { return math.Float64bits(f) }
func sx(v uint64, bits uint8) int64 {
	sh := 64 - uint(bits)
	return int64(v<<sh) >> sh
}

// run executes t until it exits, waits, or faults.
func (m *machine) run(t *thread) {
	code := t.fn.code
	r := t.regs
	pc := t.pc
	for {
		in := &code[pc]
		pc++
		if in.guard >= 0 && (r[in.guard] != 0) == (in.flags&fGuardNeg != 0) {
			continue
		}
		switch in.op {
		case opNop:
		case opFence:
			if m.gr != nil {
				t.pc = pc
				m.raceFence(t)
			}
		case opMov:
			r[in.d] = r[in.a] & in.mask
		case opAddImm:
			r[in.d] = (r[in.a] + uint64(in.imm)) & in.mask
		case opAddI:
			r[in.d] = (r[in.a] + r[in.b]) & in.mask
		case opSubI:
			r[in.d] = (r[in.a] - r[in.b]) & in.mask
		case opMulLo:
			r[in.d] = (r[in.a] * r[in.b]) & in.mask
		case opMadLo:
			r[in.d] = (r[in.a]*r[in.b] + r[in.c]) & in.mask
		case opMulWideS:
			r[in.d] = uint64(sx(r[in.a], in.bits)*sx(r[in.b], in.bits)) & in.mask
		case opMulWideU:
			r[in.d] = r[in.a] * r[in.b] & in.mask
		case opMadWideS:
			r[in.d] = (uint64(sx(r[in.a], in.bits)*sx(r[in.b], in.bits)) + r[in.c]) & in.mask
		case opMadWideU:
			r[in.d] = (r[in.a]*r[in.b] + r[in.c]) & in.mask
		case opAnd:
			r[in.d] = r[in.a] & r[in.b]
		case opOr:
			r[in.d] = r[in.a] | r[in.b]
		case opXor:
			r[in.d] = r[in.a] ^ r[in.b]
		case opNot:
			r[in.d] = ^r[in.a] & in.mask
		case opShl:
			if s := uint32(r[in.b]); s < uint32(in.bits) {
				r[in.d] = r[in.a] << s & in.mask
			} else {
				r[in.d] = 0
			}
		case opShrU:
			if s := uint32(r[in.b]); s < 64 {
				r[in.d] = r[in.a] >> s
			} else {
				r[in.d] = 0
			}
		case opShrS:
			r[in.d] = uint64(sx(r[in.a], in.bits)>>min(uint32(r[in.b]), 63)) & in.mask
		case opAddF32:
			r[in.d] = u32f(m.f32Result(in, fpu.AddF32(m.in32(in, r[in.a]), m.in32(in, r[in.b]), fpu.Rounding(in.mode))))
		case opSubF32:
			r[in.d] = u32f(m.f32Result(in, fpu.SubF32(m.in32(in, r[in.a]), m.in32(in, r[in.b]), fpu.Rounding(in.mode))))
		case opMulF32:
			r[in.d] = u32f(m.f32Result(in, fpu.MulF32(m.in32(in, r[in.a]), m.in32(in, r[in.b]), fpu.Rounding(in.mode))))
		case opFmaF32:
			r[in.d] = u32f(m.f32Result(in, fpu.FmaF32(m.in32(in, r[in.a]), m.in32(in, r[in.b]), m.in32(in, r[in.c]), fpu.Rounding(in.mode))))
		case opAddF64:
			r[in.d] = u64f(fpu.AddF64(f64(r[in.a]), f64(r[in.b]), fpu.Rounding(in.mode)))
		case opSubF64:
			r[in.d] = u64f(fpu.SubF64(f64(r[in.a]), f64(r[in.b]), fpu.Rounding(in.mode)))
		case opMulF64:
			r[in.d] = u64f(fpu.MulF64(f64(r[in.a]), f64(r[in.b]), fpu.Rounding(in.mode)))
		case opFmaF64:
			r[in.d] = u64f(fpu.FmaF64(f64(r[in.a]), f64(r[in.b]), f64(r[in.c]), fpu.Rounding(in.mode)))
		case opSetpI, opSetpF:
			var ok bool
			switch {
			case in.op == opSetpF && in.bits == 32:
				ok = fpu.CompareF32(fpu.Compare(in.mode), m.in32(in, r[in.a]), m.in32(in, r[in.b]))
			case in.op == opSetpF:
				ok = fpu.CompareF64(fpu.Compare(in.mode), f64(r[in.a]), f64(r[in.b]))
			case in.kind == kS:
				ok = cmpSigned(int(in.mode), sx(r[in.a], in.bits), sx(r[in.b], in.bits))
			default:
				ok = cmpUnsigned(int(in.mode), r[in.a], r[in.b])
			}
			if in.k2 == 0 {
				r[in.d] = b2u(ok)
				if in.v[0] >= 0 {
					r[in.v[0]] = b2u(!ok)
				}
				continue
			}
			m.combine(in, r, ok)
		case opSelp:
			if r[in.c] != 0 {
				r[in.d] = r[in.a]
			} else {
				r[in.d] = r[in.b]
			}
		case opLdParam:
			if addr := r[in.a] + uint64(in.imm); in.vec == 1 && addr < uint64(len(m.l.Params)) && uint64(len(m.l.Params))-addr >= uint64(in.size) {
				r[in.v[0]] = extend(loadLE(m.l.Params[addr:], in.size), in)
				continue
			}
			fallthrough
		case opLdGlobal:
			addr := r[in.a] + uint64(in.imm)
			if n := uint64(in.size); in.vec == 1 && addr&(n-1) == 0 && m.gr == nil {
				if b := m.global(addr, n); b != nil {
					if m.obs != nil {
						t.pc = pc
						m.observe(t, in, addr, n)
					}
					r[in.v[0]] = extend(loadLE(b, in.size), in)
					continue
				}
			}
			fallthrough
		case opLdShared, opLdLocal, opLdGeneric:
			addr := r[in.a] + uint64(in.imm)
			n := uint64(in.size) * uint64(in.vec)
			t.pc = pc
			locked := m.lockStrong(t)
			b := m.access(t, in, in.op, addr, n)
			if b == nil {
				m.unlockStrong(locked)
				return
			}
			for i := 0; i < int(in.vec); i++ {
				r[in.v[i]] = extend(loadLE(b[i*int(in.size):], in.size), in)
			}
			m.unlockStrong(locked)
			r[sSink] = 0
		case opStGlobal:
			addr := r[in.a] + uint64(in.imm)
			if n := uint64(in.size); in.vec == 1 && addr&(n-1) == 0 && m.gr == nil {
				if b := m.global(addr, n); b != nil {
					if m.obs != nil {
						t.pc = pc
						m.observe(t, in, addr, n)
					}
					store(b, in.size, r[in.v[0]])
					continue
				}
			}
			fallthrough
		case opStShared, opStLocal, opStGeneric:
			if in.op == opStShared && m.mustPause(t.warp) {
				t.pc, t.state = pc-1, tYield
				return
			}
			addr := r[in.a] + uint64(in.imm)
			n := uint64(in.size) * uint64(in.vec)
			t.pc = pc
			locked := m.lockStrong(t)
			b := m.access(t, in, in.op, addr, n)
			if b == nil {
				m.unlockStrong(locked)
				return
			}
			for i := 0; i < int(in.vec); i++ {
				store(b[i*int(in.size):], in.size, r[in.v[i]])
			}
			m.unlockStrong(locked)
		case opBra:
			if int(in.imm) < pc && m.spin() {
				t.pc, t.state = int(in.imm), tYield
				return
			}
			pc = int(in.imm)
		case opRet, opExit:
			if in.op == opRet && len(t.frames) > 0 {
				m.ret(t)
				code, r, pc = t.fn.code, t.regs, t.pc
				continue
			}
			t.state = tExited
			t.pc = pc
			return
		case opCall:
			t.pc = pc
			if !m.call(t, in) {
				return
			}
			code, r, pc = t.fn.code, t.regs, t.pc
		case opBar, opBarRed:
			t.pc = pc
			if !m.arrive(t, in) {
				return
			}
			t.state = tBarrier
			return
		case opBarArrive:
			t.pc = pc
			if !m.arrive(t, in) {
				return
			}
		case opNanosleep:
			t.pc, t.state, m.spun = pc, tYield, true
			return
		case opMbarrier:
			ok, wait := m.mbarrier(t, in, r, pc)
			if !ok {
				return
			}
			if wait {
				t.pc, t.state = pc, tYield
				return
			}
		case opShfl, opVote, opWarpSync, opActivemask, opRedux, opMatch:
			t.pc = pc
			t.state = tWarp
			return
		default:
			t.pc = pc
			if !m.slow(t, in, r) {
				return
			}
		}
	}
}

// combine finishes a setp with a combining predicate: d = cmp op c and
// the second destination, if any, (!cmp) op c.
func (m *machine) combine(in *inst, r []uint64, ok bool) {
	c := r[in.c] != 0
	if in.flags&fCombNeg != 0 {
		c = !c
	}
	op := func(x bool) bool {
		switch in.k2 {
		case 1:
			return x && c
		case 2:
			return x || c
		}
		return x != c
	}
	p, q := op(ok), op(!ok)
	r[in.d] = b2u(p)
	if in.v[0] >= 0 {
		r[in.v[0]] = b2u(q)
	}
}

// in32 reads a .f32 operand, flushed to zero under .ftz.
func (m *machine) in32(in *inst, v uint64) float32 {
	f := f32(v)
	if in.flags&fFTZ != 0 {
		return fpu.FlushF32(f)
	}
	return f
}

// f32Result applies .ftz and .sat to a .f32 result.
func (m *machine) f32Result(in *inst, f float32) float32 {
	if in.flags&(fFTZ|fSat) == 0 {
		return f
	}
	if in.flags&fFTZ != 0 {
		f = fpu.FlushF32(f)
	}
	if in.flags&fSat != 0 {
		f = fpu.SaturateF32(f)
	}
	return f
}

// call enters the callee of call site in.imm: a new frame of registers
// and local memory, the arguments copied into it.
func (m *machine) call(t *thread, in *inst) bool {
	cs := &m.cs[in.imm]
	if cs.builtin != builtinNone {
		base := int(t.regs[sFrame])
		args := make([][]byte, len(cs.args))
		for i, a := range cs.args {
			args[i] = t.local[base+a.off : base+a.off+a.size]
		}
		rets := make([][]byte, len(cs.rets))
		for i, r := range cs.rets {
			rets[i] = t.local[base+r.off : base+r.off+r.size]
		}
		return m.builtin(t, in, cs.builtin, args, rets)
	}
	g := cs.callee
	if len(t.frames) >= maxDepth {
		m.fail(t, in, CodeLaunchFailed, 0, "call stack overflow")
		return false
	}
	base := alignUp(t.sp, 16)
	if base+g.frame > maxLocal {
		m.fail(t, in, CodeLaunchFailed, 0, "local memory (stack) overflow")
		return false
	}
	if len(t.local) < base+g.frame {
		nl := make([]byte, max(base+g.frame, 2*len(t.local)))
		copy(nl, t.local)
		t.local = nl
	}
	callerBase := int(t.regs[sFrame])
	for i, a := range cs.args {
		copy(t.local[base+g.params[i].off:base+g.params[i].off+a.size], t.local[callerBase+a.off:callerBase+a.off+a.size])
	}
	depth := len(t.frames) + 1
	used := g.nslots
	for _, f := range t.frames {
		used += f.fn.nslots
	}
	if used+t.fn.nslots > maxStackRegs {
		m.fail(t, in, CodeLaunchFailed, 0, "register stack overflow")
		return false
	}
	for len(t.pool) <= depth {
		t.pool = append(t.pool, nil)
	}
	if cap(t.pool[depth]) < g.nslots {
		t.pool[depth] = make([]uint64, g.nslots)
	}
	regs := t.pool[depth][:g.nslots]
	copy(regs, g.init)
	copy(regs[:sFrame], t.regs[:sFrame])
	regs[sFrame] = uint64(base)
	t.frames = append(t.frames, frame{fn: t.fn, pc: t.pc, regs: t.regs, site: int(in.imm), base: t.sp})
	t.fn, t.pc, t.regs, t.sp = g, 0, regs, base+g.frame
	return true
}

// ret returns from a .func: its results copied to the caller's frame.
func (m *machine) ret(t *thread) {
	f := t.frames[len(t.frames)-1]
	t.frames = t.frames[:len(t.frames)-1]
	cs := &m.cs[f.site]
	calleeBase := int(t.regs[sFrame])
	callerBase := int(f.regs[sFrame])
	for i, rv := range cs.rets {
		src := calleeBase + t.fn.rets[i].off
		copy(t.local[callerBase+rv.off:callerBase+rv.off+rv.size], t.local[src:src+rv.size])
	}
	t.fn, t.pc, t.regs, t.sp = f.fn, f.pc, f.regs, f.base
}

// slow executes the less frequent instructions. It returns false when
// the thread stops (a fault).
func (m *machine) slow(t *thread, in *inst, r []uint64) bool {
	a, b, c := r[in.a], r[in.b], r[in.c]
	w := in.bits
	var v uint64
	switch in.op {
	case opPack:
		sh := uint(in.size)
		for i := int(in.vec) - 1; i >= 0; i-- {
			v = v<<sh | r[in.v[i]]&widthMask(in.size)
		}
		r[in.d] = v & in.mask
		return true
	case opUnpack:
		sh := uint(in.size)
		for i := 0; i < int(in.vec); i++ {
			r[in.v[i]] = a >> (sh * uint(i)) & widthMask(in.size)
		}
		r[sSink] = 0
		return true
	case opBfi:
		pos, ln := c&0xff, r[in.v[0]]&0xff
		v = b
		for i := uint64(0); i < ln && pos+i < uint64(w); i++ {
			v = v&^(1<<(pos+i)) | (a>>i&1)<<(pos+i)
		}
	case opSetpH:
		m.setpHalf(in, r)
		return true
	case opAtom:
		return m.atomic(t, in, r)
	case opCpAsync:
		return m.cpAsync(t, in, r)
	case opClock:
		v = uint64(time.Since(m.start).Nanoseconds())
	case opGlobalTimer:
		v = uint64(time.Now().UnixNano())
	case opTrap:
		m.fail(t, in, CodeLaunchFailed, 0, "trap")
		return false
	default:
		var ok bool
		if v, ok = m.value(in, a, b, c); !ok {
			m.fail(t, in, CodeIllegalInstr, 0, "instruction not implemented")
			return false
		}
	}
	r[in.d] = v & in.mask
	r[sSink] = 0
	return true
}

// value computes the result of a pure instruction of sources a, b and c
// (before in.mask), and reports whether in is one (the integer, bit,
// float and conversion instructions that slow runs; not opPack, opUnpack,
// opBfi, whose operands are more).
func (m *machine) value(in *inst, a, b, c uint64) (v uint64, ok bool) {
	w := in.bits
	switch in.op {
	case opMulHiU:
		if w == 64 {
			v, _ = bits.Mul64(a, b)
		} else {
			v = a * b >> w
		}
	case opMulHiS:
		v = mulHiS(a, b, w)
	case opMadHiU:
		if w == 64 {
			v, _ = bits.Mul64(a, b)
		} else {
			v = a * b >> w
		}
		v += c
	case opMadHiS:
		v = mulHiS(a, b, w) + c
	case opDivU:
		if b == 0 {
			v = in.mask
		} else {
			v = a / b
		}
	case opDivS:
		x, y := sx(a, w), sx(b, w)
		switch {
		case y == 0:
			v = in.mask // -1
		case y == -1:
			v = uint64(-x)
		default:
			v = uint64(x / y)
		}
	case opRemU:
		if b == 0 {
			v = a
		} else {
			v = a % b
		}
	case opRemS:
		x, y := sx(a, w), sx(b, w)
		switch {
		case y == 0:
			v = a
		case y == -1:
			v = 0
		default:
			v = uint64(x % y)
		}
	case opMinU:
		v = min(a, b)
	case opMaxU:
		v = max(a, b)
	case opMinS:
		v = uint64(min(sx(a, w), sx(b, w)))
	case opMaxS:
		v = uint64(max(sx(a, w), sx(b, w)))
	case opAbsS:
		x := sx(a, w)
		if x < 0 {
			x = -x
		}
		v = uint64(x)
	case opNegI:
		v = -a
	case opCnot:
		v = b2u(a == 0)
	case opPopc:
		v = uint64(bits.OnesCount64(a))
	case opClz:
		v = uint64(bits.LeadingZeros64(a) - (64 - int(w)))
	case opBrev:
		v = bits.Reverse64(a) >> (64 - w)
	case opBfeU, opBfeS:
		pos, ln := b&0xff, c&0xff
		var sbit uint64
		if in.op == opBfeS && ln > 0 {
			sbit = a >> min(pos+ln-1, uint64(w)-1) & 1
		}
		for i := uint64(0); i < uint64(w); i++ {
			var bit uint64
			if i < ln && pos+i < uint64(w) {
				bit = a >> (pos + i) & 1
			} else {
				bit = sbit
			}
			v |= bit << i
		}
	case opDivF32:
		x, y := m.in32(in, a), m.in32(in, b)
		var f float32
		switch {
		case in.flags&fApprox != 0:
			f = fpu.DivApproxF32(x, y)
		case in.flags&fFull != 0:
			f = fpu.DivFullF32(x, y)
		default:
			f = fpu.DivF32(x, y, fpu.Rounding(in.mode))
		}
		v = u32f(m.f32Result(in, f))
	case opMinF32:
		v = u32f(m.f32Result(in, fpu.MinF32(m.in32(in, a), m.in32(in, b))))
	case opMaxF32:
		v = u32f(m.f32Result(in, fpu.MaxF32(m.in32(in, a), m.in32(in, b))))
	case opAbsF32:
		v = u32f(m.f32Result(in, fpu.AbsF32(m.in32(in, a))))
	case opNegF32:
		v = u32f(m.f32Result(in, fpu.NegF32(m.in32(in, a))))
	case opCopysignF32:
		v = uint64(uint32(b)&^(1<<31) | uint32(a)&(1<<31))
	case opSqrtF32:
		x := m.in32(in, a)
		if in.flags&fApprox != 0 {
			v = u32f(m.f32Result(in, fpu.SqrtApproxF32(x)))
		} else {
			v = u32f(m.f32Result(in, fpu.SqrtF32(x, fpu.Rounding(in.mode))))
		}
	case opRcpF32:
		x := m.in32(in, a)
		if in.flags&fApprox != 0 {
			v = u32f(m.f32Result(in, fpu.RcpApproxF32(x)))
		} else {
			v = u32f(m.f32Result(in, fpu.DivF32(1, x, fpu.Rounding(in.mode))))
		}
	case opRsqrtF32:
		v = u32f(m.f32Result(in, fpu.RsqrtApproxF32(m.in32(in, a))))
	case opEx2F32:
		v = u32f(m.f32Result(in, fpu.Ex2ApproxF32(m.in32(in, a))))
	case opLg2F32:
		v = u32f(m.f32Result(in, fpu.Lg2ApproxF32(m.in32(in, a))))
	case opSinF32:
		v = u32f(m.f32Result(in, fpu.SinApproxF32(m.in32(in, a))))
	case opCosF32:
		v = u32f(m.f32Result(in, fpu.CosApproxF32(m.in32(in, a))))
	case opTanhF32:
		v = u32f(m.f32Result(in, fpu.TanhApproxF32(m.in32(in, a))))
	case opDivF64:
		v = u64f(fpu.DivF64(f64(a), f64(b), fpu.Rounding(in.mode)))
	case opMinF64:
		v = u64f(fpu.MinF64(f64(a), f64(b)))
	case opMaxF64:
		v = u64f(fpu.MaxF64(f64(a), f64(b)))
	case opAbsF64:
		v = u64f(fpu.AbsF64(f64(a)))
	case opCopysignF64:
		v = b&^(1<<63) | a&(1<<63)
	case opNegF64:
		v = u64f(fpu.NegF64(f64(a)))
	case opSqrtF64:
		v = u64f(fpu.SqrtF64(f64(a), fpu.Rounding(in.mode)))
	case opRcpF64:
		v = u64f(fpu.DivF64(1, f64(a), fpu.Rounding(in.mode)))
	case opRsqrtF64:
		v = u64f(1 / math.Sqrt(f64(a)))
	case opShfL, opShfR:
		n := c & 31
		if in.mode == 0 { // clamp
			n = min(c&math.MaxUint32, 32)
		}
		wide := b<<32 | a&math.MaxUint32 // {b, a}
		if in.op == opShfL {
			v = wide << n >> 32
		} else {
			v = wide >> n
		}
	case opPrmt:
		v = uint64(fpu.Prmt(uint32(a), uint32(b), uint32(c), fpu.PrmtMode(in.mode)))
	case opBfind, opLop3, opFns:
		v = bitResult(in, a, b, c)
	case opDp4a, opDp2a:
		v = dot(in, a, b, c)
	case opCvt:
		v = m.cvt(in, a)
	case opHalf:
		v = halfOp(in, a, b, c)
	case opCvtPack:
		hi := cvtHalf(&inst{kind: in.kind, bits: 16, k2: kF, b2: 32, mode: in.mode, flags: in.flags, vec: in.vec}, a)
		lo := cvtHalf(&inst{kind: in.kind, bits: 16, k2: kF, b2: 32, mode: in.mode, flags: in.flags, vec: in.vec}, b)
		v = hi<<16 | lo
	default:
		return 0, false
	}
	return v, true
}

func mulHiS(a, b uint64, w uint8) uint64 {
	x, y := sx(a, w), sx(b, w)
	if w < 64 {
		return uint64((x * y) >> w)
	}
	hi, _ := bits.Mul64(uint64(x), uint64(y))
	if x < 0 {
		hi -= uint64(y)
	}
	if y < 0 {
		hi -= uint64(x)
	}
	return hi
}

// cvt converts between the source type (k2, b2) and the destination
// type (kind, bits).
func (m *machine) cvt(in *inst, a uint64) uint64 {
	r := fpu.Rounding(in.mode)
	ftz := in.flags&fFTZ != 0
	sat := in.flags&fSat != 0
	switch {
	case in.kind == kH || in.kind == kBH || in.k2 == kH || in.k2 == kBH:
		return cvtHalf(in, a)
	case in.kind != kF && in.k2 != kF: // integer to integer
		if in.k2 == kS {
			return uint64(sx(a, in.b2))
		}
		return a & widthMask(in.b2)
	case in.kind == kF && in.k2 == kF:
		if in.b2 == 32 {
			x := f32(a)
			if ftz {
				x = fpu.FlushF32(x)
			}
			if in.bits == 64 {
				y := fpu.F32ToF64(x)
				if sat {
					y = fpu.SaturateF64(y)
				}
				return u64f(y)
			}
			if isIntRound(in) {
				x = fpu.RoundToIntegerF32(x, r)
			}
			return u32f(m.f32Result(in, x))
		}
		x := f64(a)
		if in.bits == 64 {
			if isIntRound(in) {
				x = fpu.RoundToIntegerF64(x, r)
			}
			if sat {
				x = fpu.SaturateF64(x)
			}
			return u64f(x)
		}
		return u32f(m.f32Result(in, fpu.F64ToF32(x, r)))
	case in.kind == kF: // integer to float
		x := a & widthMask(in.b2)
		if in.k2 == kS {
			x = uint64(sx(a, in.b2))
		}
		if in.bits == 64 {
			y := fpu.IntToF64(x, in.k2 == kS, r)
			if sat {
				y = fpu.SaturateF64(y)
			}
			return u64f(y)
		}
		return u32f(m.f32Result(in, fpu.IntToF32(x, in.k2 == kS, r)))
	}
	// float to integer, saturating
	if in.b2 == 32 {
		x := f32(a)
		if ftz {
			x = fpu.FlushF32(x)
		}
		return fpu.F32ToInt(x, r, int(in.bits), in.kind == kS)
	}
	return fpu.F64ToInt(f64(a), r, int(in.bits), in.kind == kS)
}

// isIntRound reports a float-to-float cvt with an integer rounding mode
// (.rni, .rzi, ...): the decoder folds them into mode; a plain .rn on a
// same-size conversion rounds to integer only when written .rni.
func isIntRound(in *inst) bool { return in.flags&fIntRound != 0 }

// atomic runs atom/red.
func (m *machine) atomic(t *thread, in *inst, r []uint64) bool {
	addr := r[in.a] + uint64(in.imm)
	sp := uint8(opLdGeneric)
	switch in.k2 {
	case spGlobal:
		sp = opLdGlobal
	case spShared:
		sp = opLdShared
	}
	if m.atomMu != nil && sp != opLdShared {
		// Taken before the access, so that the global race checks see
		// the atomics in the order they happen.
		m.atomMu.Lock()
		defer m.atomMu.Unlock()
	}
	b := m.access(t, in, sp, addr, uint64(in.size))
	if b == nil {
		return false
	}
	old := loadLE(b, in.size)
	x := r[in.b]
	var nv uint64
	switch in.mode {
	case atomAdd:
		switch {
		case in.kind == kF && in.bits == 32 && sp == opLdShared:
			nv = u32f(fpu.AddF32(f32(old), f32(x), fpu.Nearest))
		case in.kind == kF && in.bits == 32:
			// On global memory atom.add.f32 flushes subnormals (PTX ISA, atom).
			nv = u32f(fpu.FlushF32(fpu.AddF32(fpu.FlushF32(f32(old)), fpu.FlushF32(f32(x)), fpu.Nearest)))
		case in.kind == kF:
			nv = u64f(fpu.AddF64(f64(old), f64(x), fpu.Nearest))
		default:
			nv = old + x
		}
	case atomMin, atomMax:
		less := old < x
		if in.kind == kS {
			less = sx(old, in.bits) < sx(x, in.bits)
		}
		if less == (in.mode == atomMin) {
			nv = old
		} else {
			nv = x
		}
	case atomInc:
		if old >= x {
			nv = 0
		} else {
			nv = old + 1
		}
	case atomDec:
		if old == 0 || old > x {
			nv = x
		} else {
			nv = old - 1
		}
	case atomAnd:
		nv = old & x
	case atomOr:
		nv = old | x
	case atomXor:
		nv = old ^ x
	case atomExch:
		nv = x
	case atomCas:
		nv = old
		if old == x {
			nv = r[in.c]
		}
	}
	store(b, in.size, nv&in.mask)
	r[in.d] = old
	r[sSink] = 0
	return true
}
