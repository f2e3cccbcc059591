package fake

import (
	"fmt"

	"github.com/nocgo/cuda/fake/internal/ptxexec"
)

// In-kernel global-memory races and reads of what a launch had not yet
// written: the PTX interpreter checks them (ptxexec.Launch.GlobalRaces,
// set whenever the race detector observes a launch) and raceObserver
// turns its reports into hazards here.

// GlobalRace makes raceObserver a ptxexec.GlobalRaceObserver: a race
// between two threads of one launch on global memory becomes a
// GlobalMemoryRace hazard.
func (o raceObserver) GlobalRace(r ptxexec.GlobalRace) {
	rec := o.rec
	side := func(a ptxexec.GlobalAccess) Access {
		site := &KernelSite{PTXLine: a.Line, Instr: a.Instr, Block: a.Block, Thread: a.Thread}
		if a.File != "" {
			site.Source = fmt.Sprintf("%s:%d", a.File, a.FileLine)
		}
		kind := a.Kind.String()
		if a.Strong {
			kind += " (volatile/relaxed)"
		}
		return Access{Op: rec.what, Kind: kind, Stream: rec.op.stream, Item: rec.op.seq, Stack: frames(rec.op.stack), Kernel: site}
	}
	h := Hazard{Kind: GlobalMemoryRace, Addr: uintptr(r.Addr), Size: uintptr(r.Size), Current: side(r.Second), Previous: side(r.First)}
	b := rec.b
	b.mu.RLock()
	if a := b.findLocked(uintptr(r.Addr)); a != nil {
		h.Alloc, h.AllocSize = a.base, a.size
	}
	b.mu.RUnlock()
	b.race.deliver([]Hazard{h})
}

// unwritten records a read (or atomic) of bytes the launch had not
// written before it (ptxexec.Access.Unwritten): it read what they held
// when the launch began, so it is checked for an uninitialised read
// before the launch's writes count (raceRecorder.flush).
func (rec *raceRecorder) unwritten(addr, n uintptr, line int, instr string, block, thread [3]uint32) {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	for i := len(rec.fresh) - 1; i >= max(0, len(rec.fresh)-openRuns); i-- {
		r := &rec.fresh[i]
		if r.site.PTXLine == line && addr <= r.hi && addr+n >= r.lo {
			r.lo, r.hi = min(r.lo, addr), max(r.hi, addr+n)
			return
		}
	}
	if len(rec.fresh) >= maxRuns {
		return
	}
	site := &KernelSite{PTXLine: line, Instr: instr, Block: block, Thread: thread}
	rec.fresh = append(rec.fresh, raceRun{lo: addr, hi: addr + n, kind: accRead, site: site})
}

// checkUnwritten reports the recorded reads of bytes that nothing wrote,
// before the launch's own writes are recorded.
func (rec *raceRecorder) checkUnwritten(fresh []raceRun) {
	b, r := rec.b, rec.b.race
	var found []Hazard
	for _, run := range fresh {
		b.mu.RLock()
		a := b.findLocked(run.lo)
		b.mu.RUnlock()
		if a == nil || a.kind != deviceMem {
			continue
		}
		acc := &raceAccess{op: rec.op, kind: accRead, what: rec.what, site: run.site}
		r.mu.Lock()
		for _, u := range r.unwrittenLocked(a, run.lo, min(run.hi, a.end())) {
			key := hazardKey{cur: rec.op, curWhat: rec.what, alloc: a.base}
			if !r.seen[key] {
				r.seen[key] = true
				found = append(found, newHazard(a, u[0], u[1]-u[0], nil, acc))
			}
		}
		r.mu.Unlock()
	}
	r.deliver(found)
}
