package worker

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
)

// proc is one worker as its parent sees it: the pipes to it and the means
// to kill it.
type proc struct {
	toChild   *os.File // requests
	fromChild *os.File // replies
	pid       int
	exited    chan struct{} // closed once the worker has ended
	kill      func()        // ends the worker now (idempotent)
	startText string        // why the worker's driver did not open, from its hello
	inProcess bool          // a fake process: a hung function's goroutine cannot be waited for
	// edge orders the two sides of a fake process for Go's race detector,
	// as the pipe orders two processes: each side adds before it writes
	// and loads after it reads. nil for child processes.
	edge *atomic.Uint64
}

// sent is called before a request is written.
func (p *proc) sent() {
	if p.edge != nil {
		p.edge.Add(1)
	}
}

// received is called after a reply was read (or the read failed).
func (p *proc) received() {
	if p.edge != nil {
		p.edge.Load()
	}
}

// edgeReader and edgeWriter are the fake worker's pipe ends, with the
// ordering edge of proc.edge.
type edgeReader struct {
	f    *os.File
	edge *atomic.Uint64
}

func (r edgeReader) Read(b []byte) (int, error) {
	n, err := r.f.Read(b)
	r.edge.Load()
	return n, err
}

type edgeWriter struct {
	f    *os.File
	edge *atomic.Uint64
}

func (w edgeWriter) Write(b []byte) (int, error) {
	w.edge.Add(1)
	return w.f.Write(b)
}

// stop ends the worker: a clean exit request when it is idle and graceful,
// then a kill when it has not exited after grace.
func (p *proc) stop(graceful bool, grace time.Duration) {
	if graceful {
		var b [headerSize]byte
		putRequest(b[:], request{kind: reqExit})
		if _, err := p.toChild.Write(b[:]); err == nil {
			select {
			case <-p.exited:
			case <-time.After(grace):
			}
		}
	}
	p.kill()
	p.toChild.Close()
	p.fromChild.Close()
	if !graceful && !p.inProcess {
		select {
		case <-p.exited:
		case <-time.After(grace):
		}
	}
}

// fakePIDs numbers the fake's worker processes.
var fakePIDs atomic.Int64

// startFake starts a worker over a process spawned by sp, on a goroutine.
func startFake(sp backend.ProcessSpawner, uuid string) (*proc, error) {
	pr, err := sp.SpawnProcess()
	if err != nil {
		return nil, fmt.Errorf("SpawnProcess: %w", err)
	}
	reqR, reqW, err := os.Pipe()
	if err != nil {
		pr.Exit()
		return nil, err
	}
	repR, repW, err := os.Pipe()
	if err != nil {
		pr.Exit()
		reqR.Close()
		reqW.Close()
		return nil, err
	}
	pid := int(fakePIDs.Add(1))
	p := &proc{toChild: reqW, fromChild: repR, pid: pid, exited: make(chan struct{}), inProcess: true, edge: new(atomic.Uint64)}
	var once sync.Once
	end := func() {
		once.Do(func() {
			p.edge.Add(1)
			pr.Exit()
			reqR.Close()
			repW.Close()
		})
	}
	p.kill = end
	go func() {
		defer close(p.exited)
		defer end()
		defer func() { recover() }() // a bug of ours ends this worker, not the program
		drv, err := driver.New(pr)
		env := openEnv(drv, err, uuid, pid)
		if serve(edgeReader{reqR, p.edge}, edgeWriter{repW, p.edge}, env) == 0 {
			env.close()
		}
	}()
	return p, nil
}

// startChild starts a worker as a child process of this binary.
func startChild(opts *Options, uuid string) (*proc, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	reqR, reqW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	repR, repW, err := os.Pipe()
	if err != nil {
		reqR.Close()
		reqW.Close()
		return nil, err
	}
	cmd := exec.Command(exe)
	if flag.Lookup("test.run") != nil {
		// A test binary: should its TestMain not call Main, the child runs
		// no test and exits, instead of running the tests again.
		cmd.Args = append(cmd.Args, "-test.run=^$", "-test.bench=^$")
	}
	cmd.Env = append(append(os.Environ(), opts.Env...), envMarker+"=1:"+uuid)
	cmd.ExtraFiles = []*os.File{reqR, repW}
	out := opts.Output
	if out == nil {
		out = os.Stderr
	}
	cmd.Stdout, cmd.Stderr = out, out
	err = cmd.Start()
	reqR.Close()
	repW.Close()
	if err != nil {
		reqW.Close()
		repR.Close()
		return nil, err
	}
	p := &proc{toChild: reqW, fromChild: repR, pid: cmd.Process.Pid, exited: make(chan struct{})}
	p.kill = func() { cmd.Process.Kill() }
	go func() {
		cmd.Wait()
		close(p.exited)
	}()
	return p, nil
}

// greet reads the worker's hello within timeout and checks that it
// registered the same functions.
func (p *proc) greet(timeout time.Duration, buf []byte) error {
	p.fromChild.SetReadDeadline(time.Now().Add(timeout))
	defer p.fromChild.SetReadDeadline(time.Time{})
	if err := readFull(p.fromChild, buf[:headerSize]); err != nil {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return fmt.Errorf("no hello within %v", timeout)
		}
		return fmt.Errorf("the worker ended before its hello (does main, or TestMain, call worker.Main first?): %w", err)
	}
	rep, err := getReply(buf)
	if err != nil {
		return err
	}
	if rep.kind != repHello {
		return fmt.Errorf("the worker's first frame is not a hello (kind %d)", rep.kind)
	}
	if err := readFull(p.fromChild, buf[headerSize:headerSize+int(rep.textLen)]); err != nil {
		return err
	}
	p.startText = string(buf[headerSize : headerSize+int(rep.textLen)])
	n, hash := registryHash()
	if int(rep.seq) != n || rep.aux != hash {
		return fmt.Errorf("the worker registered %d functions, this process %d, or others (call worker.Register at package level only)", rep.seq, n)
	}
	return nil
}
