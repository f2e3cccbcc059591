package nccl_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/nccl"
)

// A rank whose peers may never come: a non-blocking NewComm returns at
// once, Wait gives the others a deadline, and Abort ends the communicator
// when they miss it.
func ExampleComm_Wait() {
	drv := fake.New(fake.Devices(1))
	dev, _ := drv.Device(0)
	ctx, _ := dev.PrimaryContext()
	defer ctx.Close()
	id, _ := nccl.NewUniqueID(ctx)
	// Rank 0 of 2; rank 1 never calls NewComm.
	c, err := nccl.NewComm(ctx, 2, id, 0, &nccl.Config{NonBlocking: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("in progress:", errors.Is(c.AsyncError(), nccl.InProgress))
	deadline, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if err := c.Wait(deadline); errors.Is(err, context.DeadlineExceeded) {
		fmt.Println("the peers did not come in time")
		fmt.Println("abort:", c.Abort())
	}
	fmt.Println("closed:", errors.Is(c.AsyncError(), driver.ErrClosed))
	// Output:
	// in progress: true
	// the peers did not come in time
	// abort: <nil>
	// closed: true
}
