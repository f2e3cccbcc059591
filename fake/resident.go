package fake

import "github.com/nocgo/cuda/driver"

// residentBlocks is how many blocks of a launch of k with this block and
// dynamic shared memory the device keeps resident at once: the blocks one
// SM holds (threads, blocks and shared memory per SM, blocksPerSM's rule,
// with the kernel's static shared memory counted) times the SMs. The
// interpreter runs blocks that wait for each other as that many resident
// blocks (ptxexec.Launch.Resident); it is at least 1.
func (k *kernel) residentBlocks(a map[driver.DeviceAttribute]int, block [3]uint32, sharedMem uint32) int {
	shared := uintptr(sharedMem)
	if k.interp != nil {
		shared += uintptr(k.interp.StaticShared)
	}
	bs := int(block[0]) * int(block[1]) * int(block[2])
	return max(blocksPerSM(a, bs, shared), 1) * max(a[driver.AttrMultiprocessorCount], 1)
}
