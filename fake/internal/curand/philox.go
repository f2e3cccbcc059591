package curand

import "math/bits"

// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2,
// 3", SC'11), as cuRAND's device API computes it (curand_philox4x32_x.h):
// a 128-bit counter, a 64-bit key (the seed), ten rounds with the Weyl key
// schedule. A subsequence is the counter's upper 64 bits, so subsequence s,
// element e (of 32 bits) is word e%4 of the block at counter (e/4) + s<<64.
const (
	philoxM0 = 0xD2511F53
	philoxM1 = 0xCD9E8D57
	philoxW0 = 0x9E3779B9
	philoxW1 = 0xBB67AE85
)

// philoxBlock returns the four words of counter c (c[0] least significant)
// under key k.
func philoxBlock(c [4]uint32, k [2]uint32) [4]uint32 {
	for i := 0; i < 10; i++ {
		hi0, lo0 := bits.Mul32(philoxM0, c[0])
		hi1, lo1 := bits.Mul32(philoxM1, c[2])
		c = [4]uint32{hi1 ^ c[1] ^ k[0], lo1, hi0 ^ c[3] ^ k[1], lo0}
		k[0] += philoxW0
		k[1] += philoxW1
	}
	return c
}

// philoxAt returns element e of subsequence s for seed.
func philoxAt(seed, s, e uint64) uint32 {
	q := e / 4
	c := [4]uint32{uint32(q), uint32(q >> 32), uint32(s), uint32(s >> 32)}
	return philoxBlock(c, [2]uint32{uint32(seed), uint32(seed >> 32)})[e%4]
}
