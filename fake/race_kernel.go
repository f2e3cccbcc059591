package fake

import (
	"github.com/nocgo/cuda/fake/internal/ptxexec"
	"github.com/nocgo/cuda/fake/internal/race"
)

// raceObserver is a launch's race.Recorder as the PTX interpreter's
// Observer, SharedRaceObserver and GlobalRaceObserver
// (race_inkernel.go): global accesses become recorded runs, in-kernel
// races SharedMemoryRace and GlobalMemoryRace hazards.
type raceObserver struct{ rec *race.Recorder }

// raceObserve returns rec as the interpreter's Observer; nil (a nil
// interface) when detection is off.
func raceObserve(rec *race.Recorder) ptxexec.Observer {
	if rec == nil {
		return nil
	}
	return raceObserver{rec}
}

// raceKind is the detector's kind of a ptxexec access kind.
func raceKind(k ptxexec.AccessKind) race.AccessKind {
	switch k {
	case ptxexec.Write:
		return race.Write
	case ptxexec.Atomic:
		return race.Atomic
	}
	return race.Read
}

func (o raceObserver) Global(a ptxexec.Access) {
	if a.Unwritten {
		o.rec.AddUnwritten(uintptr(a.Addr), uintptr(a.Size), raceKind(a.Kind), a.Line, a.Instr, a.Block, a.Thread)
		return
	}
	o.rec.Add(uintptr(a.Addr), uintptr(a.Size), raceKind(a.Kind), a.Line, a.Instr, a.Block, a.Thread)
}

func (o raceObserver) SharedRace(r ptxexec.SharedRace) {
	side := func(a ptxexec.SharedAccess) race.SharedSide {
		return race.SharedSide{Thread: a.Thread, Kind: raceKind(a.Kind), Line: a.Line, Instr: a.Instr, File: a.File, FileLine: a.FileLine}
	}
	o.rec.SharedRace(r.Block, r.Offset, side(r.First), side(r.Second))
}
