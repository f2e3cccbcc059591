package fake

import "github.com/nocgo/cuda/fake/internal/ptxexec"

// SharedRace makes raceObserver a ptxexec.SharedRaceObserver: the PTX
// interpreter's in-kernel shared-memory races (Launch.SharedRaces, set
// whenever the race detector observes a launch) become SharedMemoryRace
// hazards through raceRecorder.sharedRace.
func (o raceObserver) SharedRace(r ptxexec.SharedRace) {
	side := func(a ptxexec.SharedAccess) sharedSide {
		k := accRead
		switch a.Kind {
		case ptxexec.Write:
			k = accWrite
		case ptxexec.Atomic:
			k = accAtomic
		}
		return sharedSide{thread: a.Thread, kind: k, line: a.Line, instr: a.Instr, file: a.File, fileLine: a.FileLine}
	}
	o.rec.sharedRace(r.Block, r.Offset, side(r.First), side(r.Second))
}
