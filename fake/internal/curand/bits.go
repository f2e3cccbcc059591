package curand

import "github.com/nocgo/cuda/driver/backend"

// The host API's output order: the model the fake follows, which the GPU
// test (TestMatchesCURAND) checks against libcurand. cuRAND runs each
// pseudo-random generator as Threads threads, thread t on subsequence t of
// the seed's sequence; output word m (counted from the generator's offset,
// across calls) is element m/Threads of thread m%Threads for XORWOW and
// MRG32k3a, and Philox threads write blocks of four words (element
// 4·(q/Threads) + m%4 of thread q%Threads, q = m/4). This is the
// CURAND_ORDERING_PSEUDO_LEGACY order as cuRAND documents it, which the
// fake also gives for the default ordering.
const Threads = 4096

// MRGThreads is how many threads libcurand's host MRG32k3a generator runs
// in every ordering but the legacy one, which runs Threads: the H200
// showed its words 0..81919 to be element 0 of subsequences 0..81919 in
// the default ordering (TestMRGThreads checks the model on 2^18 words),
// and word 4096 to leave subsequence 4096 in the legacy one.
const MRGThreads = 81920

// mrgThreads returns the threads of an MRG32k3a generator in ordering o.
func mrgThreads(o backend.RANDOrdering) uint64 {
	if o == backend.OrderingPseudoLegacy {
		return Threads
	}
	return MRGThreads
}

// stream produces a pseudo-random generator's 32-bit output words from
// global word index m on.
type stream interface {
	words(dst []uint32, m uint64)
}

type philoxStream struct{ seed uint64 }

func (p philoxStream) words(dst []uint32, m uint64) {
	for i := range dst {
		w := m + uint64(i)
		q := w / 4
		dst[i] = philoxAt(p.seed, q%Threads, 4*(q/Threads)+w%4)
	}
}

// interleaved is a generator of T threads whose thread t gives word m
// (m%T == t) as element m/T of subsequence t.
type interleaved struct {
	threads uint64 // T
	start   func(subsequence, offset uint64) func() uint32
}

func (g interleaved) words(dst []uint32, m uint64) {
	n, T := uint64(len(dst)), g.threads
	for t := uint64(0); t < T && t < n; t++ {
		first := m + t // the first index of the call in thread (m+t)%T
		th := first % T
		next := g.start(th, first/T)
		for i := t; i < n; i += T {
			dst[i] = next()
		}
	}
}

func xorwowStream(seed uint64) stream {
	return interleaved{Threads, func(s, off uint64) func() uint32 {
		g := newXORWOW(seed, s, off)
		return g.next
	}}
}

func mrgStream(seed, threads uint64) stream {
	return interleaved{threads, func(s, off uint64) func() uint32 {
		g := newMRG32k3a(seed, s, off)
		return g.next
	}}
}

// mrgDoubles is MRG32k3a's own double output (curand_MRG32k3a), in the
// interleaved order: cuRAND's uniform distributions of MRG32k3a scale it
// rather than a 32-bit word.
func mrgDoubles(seed uint64, o backend.RANDOrdering, dst []float64, m uint64) {
	n, T := uint64(len(dst)), mrgThreads(o)
	for t := uint64(0); t < T && t < n; t++ {
		first := m + t
		g := newMRG32k3a(seed, first%T, first/T)
		for i := t; i < n; i += T {
			dst[i] = g.nextDouble()
		}
	}
}

// mtgpStream stands in for MTGP32 and MT19937, whose parameter tables are
// cuRAND's: Philox under a key derived from the seed. The values are not
// cuRAND's (see the package documentation).
func mtgpStream(seed uint64) stream { return philoxStream{seed ^ 0x4d54475033320000} }

func newStream(kind backend.RNGType, seed uint64, o backend.RANDOrdering) stream {
	switch kind {
	case backend.RNGPhilox4x32x10:
		return philoxStream{seed}
	case backend.RNGMRG32k3a:
		return mrgStream(seed, mrgThreads(o))
	case backend.RNGMTGP32, backend.RNGMT19937:
		return mtgpStream(seed)
	}
	return xorwowStream(seed)
}

// doubleWords32 returns the 2n words of n double-precision numbers of a
// Philox or XORWOW generator from double index m on (the generator's
// offset counts doubles here): double i takes words 2i and 2i+1. The order
// is the one the H200's libcurand showed (TestMatchesCURAND): a Philox
// thread writes four doubles per step, from two consecutive blocks of its
// subsequence (double m is in group g = m/4 of thread g%Threads, block
// 2·(g/Threads) + (m%4)/2, words 2·(m%2) and 2·(m%2)+1 of it); an XORWOW
// thread writes one double per step from two consecutive elements of its
// subsequence (double m: thread m%Threads, elements 2·(m/Threads) and one
// more).
func doubleWords32(kind backend.RNGType, seed uint64, w []uint32, m uint64) {
	n := uint64(len(w)) / 2
	if kind == backend.RNGPhilox4x32x10 {
		for i := uint64(0); i < n; i++ {
			d := m + i
			g := d / 4
			e := 4*(2*(g/Threads)+d%4/2) + 2*(d%2)
			w[2*i] = philoxAt(seed, g%Threads, e)
			w[2*i+1] = philoxAt(seed, g%Threads, e+1)
		}
		return
	}
	for t := uint64(0); t < Threads && t < n; t++ {
		first := m + t
		x := newXORWOW(seed, first%Threads, 2*(first/Threads))
		for i := t; i < n; i += Threads {
			w[2*i] = x.next()
			w[2*i+1] = x.next()
		}
	}
}
