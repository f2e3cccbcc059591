package ptxexec

import (
	"math/rand/v2"
	"sort"
	"testing"
)

// TestFirstChangeMatchesSearch checks firstChange against sort.Search
// (what setpMask used before) for every ordered comparison, on random
// and edge differences d0 + dt*t around every block size.
func TestFirstChangeMatchesSearch(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for round := 0; round < 200000; round++ {
		n := 2 + r.IntN(1023)
		d0 := r.Int64N(1<<33) - 1<<32
		dt := r.Int64N(1<<33) - 1<<32
		if round%2 == 0 {
			dt = r.Int64N(9) - 4
			d0 = r.Int64N(int64(4*n)) - int64(2*n)
		}
		if dt == 0 {
			continue
		}
		mode := []int{cmpLT, cmpLE, cmpGT, cmpGE}[r.IntN(4)]
		p := func(t int) bool { return cmpSigned(mode, d0+dt*int64(t), 0) }
		if p(0) == p(n-1) {
			continue
		}
		want := sort.Search(n, func(t int) bool { return p(t) != p(0) })
		if got := firstChange(n, mode, d0, dt); got != want {
			t.Fatalf("n=%d d0=%d dt=%d mode=%d: firstChange %d, sort.Search %d", n, d0, dt, mode, got, want)
		}
	}
}
