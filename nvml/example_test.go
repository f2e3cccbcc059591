package nvml_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/nvml"
)

// export samples every device every period and writes one line per device
// and sample, until ctx is done: the heart of a GPU metrics exporter.
func export(ctx context.Context, lib *nvml.Library, period time.Duration, w io.Writer) error {
	tick := time.NewTicker(period)
	defer tick.Stop()
	for sample := 0; ; sample++ {
		for d, err := range lib.Devices() {
			if err != nil {
				return err
			}
			i, err := d.Index()
			if err != nil {
				return err
			}
			m, err := d.Memory()
			if err != nil {
				return err
			}
			u, err := d.Utilization()
			if err != nil {
				return err
			}
			t, err := d.Temperature()
			if err != nil {
				return err
			}
			p, err := d.Power()
			if err != nil {
				return err
			}
			fmt.Fprintf(w, "sample=%d gpu=%d mem_used=%s/%s util=%s temp=%s power=%s\n", sample, i, m.Used, m.Total, u.GPU, t, p)
		}
		select {
		case <-ctx.Done():
		case <-tick.C:
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
}

// linesThenCancel writes to w and cancels after n lines: what ends the
// example's exporter (a real one ends with its program's signal context).
type linesThenCancel struct {
	w      io.Writer
	n      int
	cancel context.CancelFunc
}

func (l *linesThenCancel) Write(p []byte) (int, error) {
	if l.n--; l.n == 0 {
		defer l.cancel()
	}
	return l.w.Write(p)
}

// A tiny exporter on the fake: two GPUs whose readings the test sets, two
// samples, then the context is cancelled and the loop ends.
func Example_exporter() {
	drv := fake.New(fake.Devices(2))
	f := fake.Of(drv)
	for i, temp := range []nvml.Celsius{41, 67} {
		_ = f.NVMLDevice(i).SetTemperature(temp)
		_ = f.NVMLDevice(i).SetUtilization(nvml.Percent(30*i), 0)
		_ = f.NVMLDevice(i).SetPower(nvml.Milliwatts(90_000 + 250_000*i))
	}
	lib, err := nvml.Open(drv)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer lib.Close()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	err = export(ctx, lib, 10*time.Millisecond, &linesThenCancel{os.Stdout, 4, cancel})
	fmt.Println("stopped:", err)
	// Output:
	// sample=0 gpu=0 mem_used=0 B/8 GiB util=0% temp=41 °C power=90 W
	// sample=0 gpu=1 mem_used=0 B/8 GiB util=30% temp=67 °C power=340 W
	// sample=1 gpu=0 mem_used=0 B/8 GiB util=0% temp=41 °C power=90 W
	// sample=1 gpu=1 mem_used=0 B/8 GiB util=30% temp=67 °C power=340 W
	// stopped: context canceled
}

// Events: a goroutine waits for critical Xid errors until its context ends.
func ExampleEventSet_Wait() {
	drv := fake.New()
	lib, err := nvml.Open(drv)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer lib.Close()
	dev, _ := lib.Device(0)
	set, _ := lib.NewEventSet()
	defer set.Close()
	if err := set.Register(dev, nvml.EventXid); err != nil {
		fmt.Println(err)
		return
	}
	_ = fake.Of(drv).NVMLDevice(0).InjectXid(79) // the GPU fell off the bus

	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	ev, err := set.Wait(ctx)
	fmt.Println(ev.Type, ev.Xid, err)
	// Output: Xid 79 <nil>
}
