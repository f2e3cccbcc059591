package fake

import (
	"github.com/nocgo/cuda/fake/internal/ptxexec"
	"github.com/nocgo/cuda/fake/internal/race"
)

// In-kernel global-memory races and reads of what a launch had not yet
// written: the PTX interpreter checks them (ptxexec.Launch.GlobalRaces,
// set whenever the race detector observes a launch) and raceObserver
// hands its reports to the launch's race.Recorder.

// GlobalRace makes raceObserver a ptxexec.GlobalRaceObserver: a race
// between two threads of one launch on global memory becomes a
// GlobalMemoryRace hazard.
func (o raceObserver) GlobalRace(r ptxexec.GlobalRace) {
	side := func(a ptxexec.GlobalAccess) race.GlobalSide {
		return race.GlobalSide{Block: a.Block, Thread: a.Thread, Kind: raceKind(a.Kind), Strong: a.Strong,
			Line: a.Line, Instr: a.Instr, File: a.File, FileLine: a.FileLine}
	}
	o.rec.GlobalRace(uintptr(r.Addr), uintptr(r.Size), side(r.First), side(r.Second))
}
