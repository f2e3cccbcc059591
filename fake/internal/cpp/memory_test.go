package cpp

import (
	"fmt"
	"math"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// maxAllocRatio is the most the preprocessor may allocate in all, per byte
// of its input (the source and the headers), whatever the input.
const maxAllocRatio = 20

// allocated returns the bytes f allocates in all (not only what it keeps),
// per run of f, for an input of size bytes.
func allocated(f func(), size int) uint64 {
	// TotalAlloc counts the whole process, and counts a span a P's
	// allocation cache takes as allocated in whole (a goroutine that moves
	// between Ps takes more: the bytes grew with GOMAXPROCS). So a small
	// input's f runs many times in one window, which spreads both over the
	// runs, and the fewest bytes of three windows are taken; f allocates
	// the same each time.
	runs := max(1, (64<<10)/max(size, 1))
	least := uint64(math.MaxUint64)
	for range 3 {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		for range runs {
			f()
		}
		runtime.ReadMemStats(&after)
		least = min(least, (after.TotalAlloc-before.TotalAlloc)/uint64(runs))
	}
	return least
}

// inputSize is what the preprocessor is given to read in u.
func inputSize(u Unit) int {
	n := len(u.Source)
	for _, h := range u.Headers {
		n += len(h)
	}
	for k, v := range u.Macros {
		n += len(k) + len(v)
	}
	return n
}

// hostileUnits are inputs shaped to make the preprocessor use the most
// memory per byte: one per kind of work it does.
func hostileUnits() map[string]Unit {
	var doubling strings.Builder
	doubling.WriteString("#define A0 1\n")
	for i := 1; i <= 24; i++ {
		fmt.Fprintf(&doubling, "#define A%d A%d+A%d\n", i, i-1, i-1)
	}
	var macros strings.Builder
	for i := range 100000 {
		fmt.Fprintf(&macros, "#define M%d %d\n", i, i)
	}
	return map[string]Unit{
		"deep #if nesting":          {Source: strings.Repeat("#if 1\n", 100000) + strings.Repeat("#endif\n", 100000)},
		"deep inactive #if":         {Source: "#if 0\n" + strings.Repeat("#if 1\n", 100000) + strings.Repeat("#endif\n", 100001)},
		"many macros":               {Source: macros.String()},
		"macros expanding in #if":   {Source: doubling.String() + strings.Repeat("#if A24\n#endif\n", 20000)},
		"long #if":                  {Source: "#if " + strings.Repeat("1+", 500000) + "1\n#endif\n"},
		"nested parentheses in #if": {Source: "#if " + strings.Repeat("(", 20000) + "1" + strings.Repeat(")", 20000) + "\n#endif\n"},
		"macro body of parentheses": {Source: "#define P " + strings.Repeat("(", 20000) + "1" + strings.Repeat(")", 20000) + "\n" + strings.Repeat("#if P\n#endif\n", 1000)},
		"errors on every line":      {Source: strings.Repeat("#else\n", 1<<17)},
		"long line":                 {Source: strings.Repeat("x", 1<<20) + "\n"},
		"blank lines":               {Source: strings.Repeat("\n", 1<<20)},
		"short lines":               {Source: strings.Repeat("x\n", 1<<19)},
		"empty directives":          {Source: strings.Repeat("#\n", 1<<19)},
		"comments":                  {Source: strings.Repeat("/**/\n", 1<<18)},
		"continued directive":       {Source: "#define X \\\n" + strings.Repeat("a\\\n", 1<<18) + "b\n"},
		"many includes of a small header": {
			Source:      strings.Repeat("#include \"h.h\"\n", 60000),
			HeaderNames: []string{"h.h"}, Headers: []string{strings.Repeat("\n", 500)},
		},
		"many includes of a header of lines": {
			Source:      strings.Repeat("#include \"h.h\"\n", 60000),
			HeaderNames: []string{"h.h"}, Headers: []string{strings.Repeat("x\n", 250)},
		},
		"nested includes": {
			Source:      "#include \"h.h\"\n",
			HeaderNames: []string{"h.h"}, Headers: []string{"#include \"h.h\"\n#include \"h.h\"\n" + strings.Repeat("\n", 100)},
		},
	}
}

// Whatever the input, the preprocessor allocates at most maxAllocRatio
// bytes per byte of it in all, refusing with an error what would take
// more.
func TestPreprocessMemoryBoundedByInput(t *testing.T) {
	for name, u := range hostileUnits() {
		t.Run(name, func(t *testing.T) {
			u.Name = "hostile.cu"
			var out Output
			size := inputSize(u)
			n := allocated(func() { out = Preprocess(u) }, size)
			assert.LessOrEqual(t, n, uint64(maxAllocRatio*size), "%d bytes allocated for %d bytes of input (%.1f×); errors: %.200q",
				n, size, float64(n)/float64(size), out.Errors)
			t.Logf("%.1f× (%d errors)", float64(n)/float64(size), len(out.Errors))
		})
	}
}
