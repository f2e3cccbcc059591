package worker_test

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/nocgo/cuda/conformance/kernels"
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/module"
	"github.com/nocgo/cuda/worker"
)

// The tests' binary is also their workers' binary.
func TestMain(m *testing.M) {
	worker.Main()
	os.Exit(m.Run())
}

type markArg struct {
	Buf  worker.Buffer[float32]
	Mark float32
}

type count struct{ N int64 }

// mark writes a.Mark to every element of a.Buf, synchronously: what a
// worker wrote before it died.
func mark(env *worker.Env, a markArg) (*memory.Buffer[float32], error) {
	buf, err := a.Buf.Open(env)
	if err != nil {
		return nil, err
	}
	v := make([]float32, buf.Len())
	for i := range v {
		v[i] = a.Mark
	}
	return buf, memory.CopyToDevice(buf, v)
}

var (
	scale = worker.Register("test.scale", func(env *worker.Env, a markArg) (count, error) {
		buf, err := a.Buf.Open(env)
		if err != nil {
			return count{}, err
		}
		v, err := memory.ToSlice(buf)
		if err != nil {
			return count{}, err
		}
		for i := range v {
			v[i] *= a.Mark
		}
		return count{int64(len(v))}, memory.CopyToDevice(buf, v)
	})
	faulty = worker.Register("test.fault", func(env *worker.Env, a markArg) (count, error) {
		buf, err := mark(env, a)
		if err != nil {
			return count{}, err
		}
		ctx, err := env.Context()
		if err != nil {
			return count{}, err
		}
		s, err := env.Stream()
		if err != nil {
			return count{}, err
		}
		m, err := module.Compile(ctx, kernels.Source, module.Options{Name: "worker_test.cu", NameExpressions: []string{kernels.FillFloat}, NoCache: true})
		if err != nil {
			return count{}, err
		}
		defer m.Close()
		f, err := m.Function(kernels.WriteAt)
		if err != nil {
			return count{}, err
		}
		if err := f.Launch(s, module.Config{Grid: module.Dim(1), Block: module.Dim(32)}, buf, int64(1)<<40); err != nil {
			return count{}, err
		}
		return count{}, s.Synchronize()
	})
	goexit = worker.Register("test.goexit", func(env *worker.Env, a markArg) (count, error) {
		if _, err := mark(env, a); err != nil {
			return count{}, err
		}
		runtime.Goexit()
		return count{}, nil
	})
	hang = worker.Register("test.hang", func(env *worker.Env, a markArg) (count, error) {
		if _, err := mark(env, a); err != nil {
			return count{}, err
		}
		time.Sleep(time.Hour)
		return count{}, nil
	})
	panicky = worker.Register("test.panic", func(env *worker.Env, a markArg) (count, error) {
		if _, err := mark(env, a); err != nil {
			return count{}, err
		}
		panic("boom")
	})

	// Functions that need no GPU, for the real child processes of this
	// machine.
	sum = worker.Register("test.sum", func(env *worker.Env, a [4]int64) (int64, error) {
		return a[0] + a[1] + a[2] + a[3], nil
	})
	pid = worker.Register("test.pid", func(env *worker.Env, _ struct{}) (int64, error) {
		return int64(os.Getpid()), nil
	})
	refuse = worker.Register("test.refuse", func(env *worker.Env, a int32) (int32, error) {
		return 0, fmt.Errorf("refused %d: %w", a, driver.ErrInvalidValue)
	})
	exit = worker.Register("test.exit", func(env *worker.Env, code int32) (int32, error) {
		os.Exit(int(code))
		return 0, nil
	})
	sleep = worker.Register("test.sleep", func(env *worker.Env, d time.Duration) (int32, error) {
		time.Sleep(d)
		return 0, nil
	})
	crash = worker.Register("test.crash", func(env *worker.Env, _ struct{}) (int32, error) {
		go panic("a panic on another goroutine ends the process")
		time.Sleep(time.Hour)
		return 0, nil
	})
	empty = worker.Register("test.empty", func(env *worker.Env, _ struct{}) (struct{}, error) {
		return struct{}{}, nil
	})
)

// failure returns err's *CallError, failing t when it is not one.
func failure(t *testing.T, err error) *worker.CallError {
	t.Helper()
	var ce *worker.CallError
	if !errors.As(err, &ce) {
		t.Fatalf("want a *worker.CallError, got %v", err)
	}
	return ce
}

func fakeDevices(n int) fake.Option { return fake.Devices(n) }

var boom = worker.Register("test.boom", func(env *worker.Env, a int32) (int32, error) {
	panic(fmt.Sprintf("boom %d", a))
})

var quit = worker.Register("test.quit", func(env *worker.Env, _ struct{}) (int32, error) {
	runtime.Goexit()
	return 0, nil
})
