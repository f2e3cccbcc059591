package module

import (
	"sort"
	"strings"

	"github.com/nocgo/cuda/internal/ptx"
)

// loaded is what a Module and a Library know of the image they loaded: its
// kind, what the compile said (architecture, log, lowered names), and its
// PTX with the kernels' signatures read from it. Both embed it; their
// accessors of the same names (Kind, Arch, Log, PTX, LoweredName, Kernels)
// read it, and a Library gives its own to each of its instances.
type loaded struct {
	kind    ImageKind
	arch    string
	log     string
	lowered map[string]string
	hasPTX  bool
	ptx     []byte      // the PTX text, when known
	entries []ptx.Entry // the PTX signatures, when the image came with PTX
	ptxErr  error       // why the PTX could not be read, if it could not
}

// nothingLoaded is what a nil Module or Library knows: the accessors' zero
// results. It is never written.
var nothingLoaded loaded

// loweredName is LoweredName.
func (d *loaded) loweredName(expr string) (string, bool) {
	s, ok := d.lowered[expr]
	return s, ok
}

// kernelNames is Kernels: the kernels' (lowered) names when the PTX is known,
// else nil.
func (d *loaded) kernelNames() []string {
	if len(d.entries) == 0 {
		return nil
	}
	names := make([]string, len(d.entries))
	for i, e := range d.entries {
		names[i] = e.Name
	}
	return names
}

// available lists the names a lookup in what ("module", "library") may
// use, for the error of a name it lacks.
func (d *loaded) available(what string) string {
	names := d.kernelNames()
	for expr := range d.lowered {
		names = append(names, expr)
	}
	if len(names) == 0 {
		return " (the " + what + "'s kernel names are unknown: it was loaded without PTX)"
	}
	sort.Strings(names)
	return " (the " + what + " has: " + strings.Join(names, ", ") + ")"
}
