package stream_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"time"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/stream"
)

// exampleContext is the primary context of device 0 on the fake; with a
// GPU, use gpu.Load instead of fake.New.
func exampleContext() *driver.Context {
	drv := fake.New(fake.Devices(1))
	dev, err := drv.Device(0)
	if err != nil {
		panic(err)
	}
	cc, err := dev.PrimaryContext()
	if err != nil {
		panic(err)
	}
	return cc
}

func ExampleNew() {
	cc := exampleContext()
	defer cc.Close()

	least, greatest, err := stream.PriorityRange(cc)
	if err != nil {
		panic(err)
	}
	s, err := stream.New(cc, stream.Options{Flags: stream.NonBlocking, Priority: greatest})
	if err != nil {
		panic(err)
	}
	defer s.Close() // owned: Close destroys it
	flags, _ := s.Flags()
	prio, _ := s.Priority()
	fmt.Println(flags, prio, s.Owned())

	_, err = stream.New(cc, stream.Options{Priority: least + 1})
	fmt.Println(errors.Is(err, driver.ErrInvalidValue))
	// Output:
	// NonBlocking -5 true
	// true
}

func ExampleWrap() {
	cc := exampleContext()
	defer cc.Close()

	// Another library created this stream (here with raw driver calls on
	// the fake's backend, with cc current).
	api := fake.Of(cc.Driver()).Backend()
	runtime.LockOSThread()
	api.CtxPushCurrent(cc.Handle())
	h, _ := api.StreamCreateWithPriority(backend.StreamNonBlocking, 0)
	api.CtxPopCurrent()
	runtime.UnlockOSThread()
	defer api.StreamDestroy(h) // the owner destroys it

	s, err := stream.Wrap(cc, h)
	if err != nil {
		panic(err)
	}
	flags, _ := s.Flags() // read from the driver: the creator's choice
	fmt.Println(s.Handle() == h, s.Owned(), flags)
	s.Close() // detaches only
	fmt.Println(api.StreamQuery(h) == nil, errors.Is(s.Synchronize(), driver.ErrClosed))

	// A zero handle is an error, never a new stream; 1 and 2 are the
	// special streams.
	_, err = stream.Wrap(cc, 0)
	fmt.Println(errors.Is(err, stream.ErrNullHandle))
	wrapped, _ := stream.Wrap(cc, 1)
	defer wrapped.Close()
	legacy, _ := stream.Legacy(cc)
	defer legacy.Close()
	fmt.Println(wrapped.Equal(legacy))
	// Output:
	// true false NonBlocking
	// true true
	// true
	// true
}

func ExampleWrapWithOptions() {
	cc := exampleContext()
	defer cc.Close()

	// A stream another library created, named for the reports (the
	// fake's race detector writes `stream "decoder"`, not its handle).
	api := fake.Of(cc.Driver()).Backend()
	runtime.LockOSThread()
	api.CtxPushCurrent(cc.Handle())
	h, _ := api.StreamCreateWithPriority(backend.StreamNonBlocking, 0)
	api.CtxPopCurrent()
	runtime.UnlockOSThread()
	defer api.StreamDestroy(h)

	s, err := stream.WrapWithOptions(cc, h, stream.WrapOptions{Name: "decoder"})
	if err != nil {
		panic(err)
	}
	defer s.Close() // detaches only
	fmt.Println(s.Name(), s.Owned())
	// Output:
	// decoder false
}

func ExampleDefault() {
	cc := exampleContext()
	defer cc.Close()
	def, _ := stream.Default(cc)
	defer def.Close() // never destroyed: Close only lets go of cc
	legacy, _ := stream.Legacy(cc)
	defer legacy.Close()
	perThread, _ := stream.PerThread(cc)
	defer perThread.Close()
	for _, s := range []*stream.Stream{def, legacy, perThread} {
		// Each call binds cc: the driver resolves these through the
		// current context.
		fmt.Printf("%#x %v %v\n", s.Handle(), s.Owned(), s.Synchronize())
	}
	def2, _ := stream.Default(cc)
	defer def2.Close()
	fmt.Println(def.Equal(def2), def.Equal(legacy))
	// Output:
	// 0x0 false <nil>
	// 0x1 false <nil>
	// 0x2 false <nil>
	// true false
}

func ExampleNewEvent() {
	cc := exampleContext()
	defer cc.Close()
	s, _ := stream.New(cc, stream.Options{})
	defer s.Close()

	start, _ := stream.NewEvent(cc, stream.EventOptions{})
	defer start.Close()
	end, _ := stream.NewEvent(cc, stream.EventOptions{})
	defer end.Close()
	start.Record(s)
	s.Callback(func() { time.Sleep(time.Millisecond) })
	end.Record(s)

	done, err := end.Query() // pending work is (false, nil)
	fmt.Println(done, err)
	end.Synchronize()
	d, err := stream.Elapsed(start, end)
	fmt.Println(d >= time.Millisecond, err)

	_, err = stream.NewEvent(cc, stream.EventOptions{Flags: stream.Interprocess}) // needs DisableTiming too
	fmt.Println(errors.Is(err, driver.ErrInvalidValue))
	// Output:
	// false <nil>
	// true <nil>
	// true
}

func ExampleStream_WaitStream() {
	cc := exampleContext()
	defer cc.Close()
	producer, _ := stream.New(cc, stream.Options{Flags: stream.NonBlocking})
	defer producer.Close()
	consumer, _ := stream.New(cc, stream.Options{Flags: stream.NonBlocking})
	defer consumer.Close()

	producer.Callback(func() { fmt.Println("produced") })
	consumer.WaitStream(producer) // consumer's later work waits for producer's so far
	consumer.Callback(func() { fmt.Println("consumed") })
	consumer.Synchronize()
	// Output:
	// produced
	// consumed
}

func ExampleStream_Callback() {
	cc := exampleContext()
	defer cc.Close()
	s, _ := stream.New(cc, stream.Options{})
	defer s.Close()

	s.Callback(func() { fmt.Println("first") })
	s.Callback(func() { panic("second fails") })
	s.Callback(func() { fmt.Println("third") })
	err := s.Synchronize()
	var pe *stream.CallbackPanicError
	fmt.Println(errors.As(err, &pe), pe.Value)
	fmt.Println(s.Synchronize()) // reported once
	// Output:
	// first
	// third
	// true second fails
	// <nil>
}

// Waiting for a stream with a deadline: the wait ends with
// context.DeadlineExceeded while the work goes on, and the stream stays
// usable.
func ExampleStream_SynchronizeContext() {
	drv := fake.New()
	dev, _ := drv.Device(0)
	cc, _ := dev.PrimaryContext()
	defer cc.Close()
	s, _ := stream.New(cc, stream.Options{})
	defer s.Close()

	release := make(chan struct{})
	s.Callback(func() { <-release }) // work that takes a while

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	err := s.SynchronizeContext(ctx)
	fmt.Println(errors.Is(err, context.DeadlineExceeded))

	close(release)
	fmt.Println(s.SynchronizeContext(context.Background()))
	// Output:
	// true
	// <nil>
}
