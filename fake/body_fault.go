package fake

import (
	"fmt"
	"runtime"
	"strings"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/fake/internal/race"
)

// accessFault describes the access of a Go body that faulted: Load or
// Store, the element and its address, the thread, and the body's line
// that made it.
func (t Thread) accessFault(p Ptr, i int, size uintptr, kind race.AccessKind, err error) error {
	op := "Load"
	if kind == race.Write {
		op = "Store"
	}
	what := "outside every allocation"
	if err != driver.ErrIllegalAddress {
		what = "misaligned"
	}
	return fmt.Errorf("%s of element %d of %#x (%d bytes each): %s, in block %v thread %v%s",
		op, i, uintptr(p), size, what, t.BlockIdx, t.ThreadIdx, bodyLine())
}

// bodyPanic describes a panic of a Go body.
func bodyPanic(t Thread, r any) error {
	return fmt.Errorf("panic: %v, in block %v thread %v%s", r, t.BlockIdx, t.ThreadIdx, bodyLine())
}

// bodyLine returns " at file:line" of the innermost caller outside this
// package's own code (the user's kernel body), or "" when none is found.
func bodyLine() string {
	var pcs [32]uintptr
	frames := runtime.CallersFrames(pcs[:runtime.Callers(2, pcs[:])])
	for {
		f, more := frames.Next()
		ours := strings.HasPrefix(f.Function, "github.com/nocgo/cuda/fake.") && !strings.HasSuffix(f.File, "_test.go")
		if !ours && !strings.HasPrefix(f.Function, "runtime.") && !strings.HasPrefix(f.Function, "reflect.") {
			return fmt.Sprintf(" at %s:%d", f.File, f.Line)
		}
		if !more {
			return ""
		}
	}
}

// bodyFault is the error of a Go body's launch that failed with code (a
// driver.Result): the code, which is sticky as on a GPU, with what the
// fake knows of the fault (detail), which KernelFault then returns, as it
// does for interpreted kernels.
func (b *fakeBackend) bodyFault(k *kernel, code error, detail error) error {
	res, ok := code.(driver.Result)
	if !ok {
		return code
	}
	if detail == nil {
		detail = fmt.Errorf("the body failed")
	}
	detail = fmt.Errorf("the Go body of kernel %s: %w", k.name, detail)
	b.interp.mu.Lock()
	if b.interp.fault == nil {
		b.interp.fault = fmt.Errorf("%w: %v", res, detail)
	}
	b.interp.mu.Unlock()
	return kernelFault{res, detail}
}
