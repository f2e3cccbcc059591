package memory_test

import (
	"fmt"

	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/memory"
)

func ExampleAllocPitched3D() {
	drv := fake.New()
	dev, _ := drv.Device(0)
	cc, _ := dev.PrimaryContext()
	defer cc.Close()

	vol, err := memory.AllocPitched3D[int32](cc, 2, 2, 2) // 2 wide, 2 high, 2 deep
	if err != nil {
		fmt.Println(err)
		return
	}
	defer vol.Close()
	if err := memory.CopyToPitched3D(vol, []int32{1, 2, 3, 4, 5, 6, 7, 8}); err != nil {
		fmt.Println(err)
		return
	}
	back := make([]int32, 8)
	if err := memory.CopyFromPitched3D(back, vol); err != nil {
		fmt.Println(err)
		return
	}
	// Element (x, y, z) is at row z*Height+y of Pitch bytes.
	all := make([]int32, vol.Buffer().Len())
	if err := memory.CopyToHost(all, vol.Buffer()); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(back, all[(1*2+1)*vol.Pitch()/4+1])
	// Output: [1 2 3 4 5 6 7 8] 8
}
