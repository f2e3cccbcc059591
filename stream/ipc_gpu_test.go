package stream_test

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/conformance"
	"github.com/nocgo/cuda/cudatest"
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/stream"
)

// ipcEnv carries the hex IPC handle from TestIPCEventGPU to its helper
// process.
const ipcEnv = "NOCGO_STREAM_TEST_IPC_EVENT"

// TestIPCEventGPU shares an event between two processes on the real GPU.
// This process holds up a stream with a blocking host callback, records an
// Interprocess event after it and runs this test binary again as a second
// process (TestIPCEventHelper) with the event's handle. The helper opens the
// event and must see it not ready, and its own stream waiting on it; then
// this process releases its stream and the helper must see the event
// complete and its stream run on. Then the other way round: the helper
// records the opened event behind its own held-up stream, and this process
// must see its event pending until the helper lets go.
func TestIPCEventGPU(t *testing.T) {
	drv := cudatest.Real(t)
	ctx := conformance.Primary(t, drv)
	s, err := stream.New(ctx, stream.Options{})
	require.NoError(t, err)
	defer s.Close()
	ev, err := stream.NewEvent(ctx, stream.EventOptions{Flags: stream.Interprocess | stream.DisableTiming})
	require.NoError(t, err)
	defer ev.Close()

	gate := make(chan struct{})
	released := false
	release := func() {
		if !released {
			released = true
			close(gate)
		}
	}
	defer release()
	require.NoError(t, s.Callback(func() {
		select {
		case <-gate:
		case <-time.After(2 * time.Minute):
		}
	}))
	require.NoError(t, ev.Record(s))
	h, err := ev.IPCHandle()
	require.NoError(t, err)

	cmd := exec.Command(os.Args[0], "-test.run=^TestIPCEventHelper$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), ipcEnv+"="+hex.EncodeToString(h[:]))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	in, err := cmd.StdinPipe()
	require.NoError(t, err)
	defer in.Close()
	require.NoError(t, cmd.Start())
	waited := false
	defer func() { // on a failure, do not leave the helper behind
		if !waited {
			cmd.Process.Kill()
			cmd.Wait()
		}
	}()
	lines := make(chan string)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			case <-stop:
				return
			}
		}
	}()
	expect := func(want string) {
		t.Helper()
		timeout := time.After(time.Minute)
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatalf("helper exited before %q: %v\nstderr:\n%s", want, cmd.Wait(), stderr.String())
				}
				if !strings.HasPrefix(l, "IPC: ") {
					t.Logf("helper: %s", l)
					continue
				}
				require.Equal(t, want, strings.TrimPrefix(l, "IPC: "))
				return
			case <-timeout:
				t.Fatalf("helper: no %q within a minute", want)
			}
		}
	}
	expect("opened, not ready")
	expect("stream waits")
	// The helper is now blocked in Synchronize on the event.
	time.Sleep(100 * time.Millisecond)
	release()
	require.NoError(t, ev.Synchronize())
	expect("complete")
	expect("stream done")

	// The other way: the helper records the event behind its own held-up
	// stream, and this process sees it pending until the helper lets go.
	expect("recorded")
	done, err := ev.Query()
	require.NoError(t, err)
	require.False(t, done, "the helper's record is pending")
	_, err = fmt.Fprintln(in, "release")
	require.NoError(t, err)
	require.NoError(t, ev.Synchronize())
	done, err = ev.Query()
	require.NoError(t, err)
	require.True(t, done)
	expect("closed")
	for l := range lines {
		t.Logf("helper: %s", l)
	}
	waited = true
	require.NoError(t, cmd.Wait(), "helper stderr:\n%s", stderr.String())
	require.NoError(t, s.Synchronize())
}

// TestIPCEventHelper is the second process of TestIPCEventGPU; on its own
// it skips.
func TestIPCEventHelper(t *testing.T) {
	hx := os.Getenv(ipcEnv)
	if hx == "" {
		t.Skip("the helper process of TestIPCEventGPU")
	}
	raw, err := hex.DecodeString(hx)
	require.NoError(t, err)
	var h driver.IPCHandle
	require.Len(t, raw, len(h))
	copy(h[:], raw)

	drv := cudatest.Real(t)
	ctx := conformance.Primary(t, drv)

	ev, err := stream.OpenIPCEvent(ctx, h)
	require.NoError(t, err)
	done, err := ev.Query()
	require.NoError(t, err)
	require.False(t, done, "the other process's stream is held up")
	fmt.Println("IPC: opened, not ready")

	s, err := stream.New(ctx, stream.Options{})
	require.NoError(t, err)
	defer s.Close()
	require.NoError(t, s.Wait(ev))
	done, err = s.Query()
	require.NoError(t, err)
	require.False(t, done, "this stream waits on the other process's event")
	fmt.Println("IPC: stream waits")

	require.NoError(t, ev.Synchronize())
	done, err = ev.Query()
	require.NoError(t, err)
	require.True(t, done)
	fmt.Println("IPC: complete")
	require.NoError(t, s.Synchronize())
	fmt.Println("IPC: stream done")

	// Record in this process: hold up s until the parent writes a line.
	stdin := bufio.NewReader(os.Stdin)
	require.NoError(t, s.Callback(func() { stdin.ReadString('\n') }))
	require.NoError(t, ev.Record(s))
	fmt.Println("IPC: recorded")
	require.NoError(t, s.Synchronize())
	require.NoError(t, ev.Close())
	require.NoError(t, ev.Close())
	fmt.Println("IPC: closed")
}
