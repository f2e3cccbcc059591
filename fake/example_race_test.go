package fake_test

import (
	"fmt"
	"strings"

	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/stream"
)

// The seeds' bug, caught: a library's stream is wrapped, the library fills
// a buffer on it, and the program reads the buffer back on the legacy
// default stream by mistake. The library's stream is non-blocking, so
// nothing orders the read after the fill: on a GPU the read sees the old
// values only sometimes; the fake's race detector reports it every time,
// naming both operations, their streams and the Go lines that enqueued
// them (h.String() prints the whole report). On the wrapped stream itself,
// or after an event, the same read is ordered and nothing is reported.
func ExampleDetectRaces() {
	var found []fake.Hazard
	drv := fake.New(fake.DetectRaces(func(h fake.Hazard) { found = append(found, h) }))
	dev, _ := drv.Device(0)
	cc, _ := dev.PrimaryContext()
	defer cc.Close()

	// The library's own stream, handed over as a raw CUstream.
	lib, _ := stream.New(cc, stream.Options{Flags: stream.NonBlocking})
	defer lib.Close()
	theirs, _ := stream.Wrap(cc, lib.Handle())
	defer theirs.Close()

	buf, _ := memory.FromSlice(cc, make([]float32, 1024))
	defer buf.Close()
	out := make([]float32, 1024)

	memory.Fill(theirs, buf, 1) // the library's work
	legacy, _ := stream.Legacy(cc)
	defer legacy.Close()
	memory.CopyToHostAsync(legacy, out, buf) // the mistake: not the library's stream
	legacy.Synchronize()
	theirs.Synchronize()

	h := found[0]
	fill, read := h.Previous, h.Current // Current is the one that ran second
	if fill.Op != "memset" {
		fill, read = read, fill
	}
	fmt.Println(h.Kind)
	fmt.Println(fill.Op, fill.Kind, "on the library's stream:", strings.Contains(fill.Stream, fmt.Sprintf("%#x", lib.Handle())))
	fmt.Println(read.Op, read.Kind, "on the legacy stream:", strings.HasPrefix(read.Stream, "the legacy default stream"))
	fmt.Println(h.Size, "bytes")

	// Right: on the wrapped stream.
	memory.Fill(theirs, buf, 2)
	memory.CopyToHostAsync(theirs, out, buf)
	theirs.Synchronize()
	// Right too: another stream, after an event recorded on the library's.
	mine, _ := stream.New(cc, stream.Options{Flags: stream.NonBlocking})
	defer mine.Close()
	ev, _ := stream.NewEvent(cc, stream.EventOptions{Flags: stream.DisableTiming})
	defer ev.Close()
	memory.Fill(theirs, buf, 3)
	ev.Record(theirs)
	mine.Wait(ev)
	memory.CopyToHostAsync(mine, out, buf)
	mine.Synchronize()
	fmt.Println(len(found), "hazard in all;", out[0])
	// Output:
	// DATA RACE between CUDA streams
	// memset write on the library's stream: true
	// memcpy DtoH read on the legacy stream: true
	// 4096 bytes
	// 1 hazard in all; 3
}

// Two named streams, a copy in on one and a copy out on the other: one
// WaitStream orders them. Without it the detector reports a DATA RACE
// between `stream "loader"` and `stream "compute"` and says to order them.
func ExampleDetectRaces_waitStream() {
	var found []fake.Hazard
	drv := fake.New(fake.DetectRaces(func(h fake.Hazard) { found = append(found, h) }))
	dev, _ := drv.Device(0)
	cc, _ := dev.PrimaryContext()
	defer cc.Close()
	buf, _ := memory.Alloc[float32](cc, 256)
	defer buf.Close()
	input, out := make([]float32, 256), make([]float32, 256)
	input[7] = 7

	loader, _ := stream.New(cc, stream.Options{Flags: stream.NonBlocking, Name: "loader"})
	compute, _ := stream.New(cc, stream.Options{Flags: stream.NonBlocking, Name: "compute"})
	memory.CopyToDeviceAsync(loader, buf, input)
	compute.WaitStream(loader) // without it: DATA RACE between `stream "loader"` and `stream "compute"`
	memory.CopyToHostAsync(compute, out, buf)
	defer loader.Close()
	defer compute.Close()
	compute.Synchronize()
	fmt.Println(len(found), "hazards;", out[7])

	// The same two copies with nothing between them.
	memory.CopyToDeviceAsync(loader, buf, input)
	memory.CopyToHostAsync(compute, out, buf)
	compute.Synchronize()
	loader.Synchronize()
	fmt.Println(found[0].Kind, strings.Contains(found[0].String(), `stream "loader"`), strings.Contains(found[0].String(), `stream "compute"`))
	// Output:
	// 0 hazards; 7
	// DATA RACE between CUDA streams true true
}
