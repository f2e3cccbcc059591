package curand

// Linear generators over GF(2) (XORWOW's xorshift part), skipped ahead with
// powers of their transition matrix, as cuRAND's skipahead does with its
// precomputed tables: a state of 160 bits, a matrix as its 160 columns.

const xwBits = 160

type xwState [5]uint32

type xwMatrix [xwBits]xwState

// apply returns m·v.
func (m *xwMatrix) apply(v xwState) xwState {
	var r xwState
	for i := 0; i < xwBits; i++ {
		if v[i/32]>>(i%32)&1 != 0 {
			c := &m[i]
			r[0] ^= c[0]
			r[1] ^= c[1]
			r[2] ^= c[2]
			r[3] ^= c[3]
			r[4] ^= c[4]
		}
	}
	return r
}

// mul returns a·b.
func (a *xwMatrix) mul(b *xwMatrix) *xwMatrix {
	r := new(xwMatrix)
	for j := range b {
		r[j] = a.apply(b[j])
	}
	return r
}

// xorwowLinear is the xorshift step of XORWOW on v (d is left out: it only
// adds a constant).
func xorwowLinear(v xwState) xwState {
	t := v[0] ^ (v[0] >> 2)
	return xwState{v[1], v[2], v[3], v[4], (v[4] ^ (v[4] << 4)) ^ (t ^ (t << 1))}
}
