package worker

import (
	"errors"
	"fmt"
	"io"

	"github.com/nocgo/cuda/driver"
)

// serve is the worker's loop: it greets, then runs the calls read from r
// and writes their replies to w, until r ends, an exit request comes, or a
// call leaves the worker unusable (a sticky fault, a panic). It returns
// the exit code of the worker process.
func serve(r io.Reader, w io.Writer, env *Env) int {
	n, hash := registryHash()
	maxArg, maxRes := maxSizes()
	in := make([]byte, headerSize+maxArg+len(driver.IPCHandle{}))
	out := make([]byte, headerSize+maxRes+maxTextSize)
	var text string
	if env.err != nil {
		text = env.err.Error()
	}
	if write(w, out, reply{kind: repHello, seq: uint32(n), code: int32(env.pid), aux: hash}, nil, text) != nil {
		return 1
	}
	for {
		if readFull(r, in[:headerSize]) != nil {
			return 0 // the parent went away, or closed the pipe to stop us
		}
		req, err := getRequest(in)
		if err != nil {
			return 2
		}
		if req.kind == reqExit {
			return 0
		}
		need := int(req.argLen)
		if req.flags&flagWaitEvent != 0 {
			need += len(driver.IPCHandle{})
		}
		if need > len(in)-headerSize || readFull(r, in[headerSize:headerSize+need]) != nil {
			return 2
		}
		args := in[headerSize : headerSize+int(req.argLen)]
		rep, res, text := call(env, n, req, args, in[headerSize+int(req.argLen):headerSize+need], out[headerSize:headerSize+maxRes])
		rep.seq = req.seq
		if write(w, out, rep, res, text) != nil {
			return 1
		}
		switch rep.kind {
		case repFault:
			return 3
		case repPanic:
			return 4
		}
	}
}

// call runs one request and says how to reply. The worker serves the
// funcs functions registered when it greeted: a child process has only
// those (the package-level ones), and so has a worker of the fake, which
// shares its parent's registry, so that a function registered after the
// pool started is refused on both.
func call(env *Env, funcs int, req request, args, event, res []byte) (rep reply, result []byte, text string) {
	var e entry
	if int(req.fn) < funcs {
		e = lookup(req.fn)
	}
	if e == nil {
		return reply{kind: repError}, nil, "worker: no function of that id in the worker (the binaries differ)"
	}
	a, _, _ := e.sizes()
	if fa, _ := e.frameSizes(); len(args) < a || len(args) > fa {
		return reply{kind: repError}, nil, "worker: " + e.funcName() + ": the argument's size differs in the worker (the binaries differ)"
	}
	if len(event) > 0 {
		var h driver.IPCHandle
		copy(h[:], event)
		if err := env.waitEvent(h); err != nil {
			return errorReply(err)
		}
	}
	n, panicText, err := e.run(env, args, res)
	env.endCall()
	if panicText != "" {
		return reply{kind: repPanic}, nil, panicText
	}
	if env.ctx != nil {
		// The function's own error comes first, with its detail (a kernel
		// fault's PTX line and thread); a sticky fault the synchronisation
		// finds is added to it, so that the call fails as Faulted.
		switch serr := env.ctx.Synchronize(); {
		case serr == nil:
		case err == nil:
			err = serr
		case sticky(serr) && !sticky(err):
			err = fmt.Errorf("%w; then cuCtxSynchronize: %w", err, serr)
		}
	}
	if err != nil {
		return errorReply(err)
	}
	return reply{kind: repOK, resLen: uint32(n)}, res[:n], ""
}

func errorReply(err error) (reply, []byte, string) {
	rep := reply{kind: repError}
	var r driver.Result
	if errors.As(err, &r) {
		rep.code = int32(r)
	}
	if sticky(err) {
		rep.kind = repFault
	}
	return rep, nil, err.Error()
}

// sticky reports whether err is a sticky fault.
func sticky(err error) bool {
	var r driver.Result
	return errors.Is(err, driver.ErrStickyFault) || errors.As(err, &r) && r.Sticky()
}

// write sends one reply frame with its result and text.
func write(w io.Writer, buf []byte, rep reply, res []byte, text string) error {
	if len(text) > maxTextSize {
		text = text[:maxTextSize]
	}
	rep.resLen = uint32(len(res))
	rep.textLen = uint32(len(text))
	putReply(buf, rep)
	n := headerSize
	n += copy(buf[n:], res)
	n += copy(buf[n:], text)
	_, err := w.Write(buf[:n])
	return err
}
