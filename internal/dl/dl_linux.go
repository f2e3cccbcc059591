//go:build linux && (amd64 || arm64)

package dl

import (
	"errors"
	"runtime"
	"strings"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"

	"github.com/nocgo/cuda/internal/cstr"
)

// Supported reports whether this platform can load libraries at run time.
const Supported = true

// errNilFn is the panic of a call with fn == 0 (a symbol never resolved):
// calling address 0 would crash the process in C.
var errNilFn = errors.New("dl: call of a NULL function pointer")

// Open loads the shared library at path (a file path, or a bare name that the
// system loader searches for) with RTLD_NOW|RTLD_LOCAL and returns its
// handle. The library stays loaded for the life of the process: callers
// never close it (libcuda cannot be unloaded safely). The error is dlerror's
// message.
func Open(path string) (uintptr, error) {
	if path == "" {
		return 0, ErrEmptyName
	}
	if strings.IndexByte(path, 0) >= 0 {
		return 0, cstr.ErrNUL
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	h, err := purego.Dlopen(path, purego.RTLD_NOW|purego.RTLD_LOCAL)
	if err != nil {
		return 0, message(err, "cannot open shared object")
	}
	return h, nil
}

// Sym returns the address of symbol name in the library handle h. The error
// is dlerror's message (such as "/lib/libcuda.so.1: undefined symbol: cuFoo").
func Sym(h uintptr, name string) (uintptr, error) {
	if name == "" {
		return 0, ErrEmptyName
	}
	if strings.IndexByte(name, 0) >= 0 {
		return 0, cstr.ErrNUL
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	p, err := purego.Dlsym(h, name)
	if err != nil {
		return 0, message(err, "undefined symbol: "+name)
	}
	if p == 0 {
		return 0, errors.New("symbol " + name + " has a NULL address")
	}
	return p, nil
}

// message turns a purego.Dlerror into a plain error, using fallback when the
// loader left no message.
func message(err error, fallback string) error {
	if err.Error() == "" {
		return errors.New(fallback)
	}
	return errors.New(err.Error())
}

// rtldDILinkmap is RTLD_DI_LINKMAP, dlinfo's request for the library's
// struct link_map.
const rtldDILinkmap = 2

var dlinfo = sync.OnceValue(func() uintptr {
	p, err := Sym(purego.RTLD_DEFAULT, "dlinfo")
	if err != nil {
		return 0
	}
	return p
})

// Path returns the file the system loader opened for handle h (the l_name of
// its link map, an absolute path when the library was found through the
// loader's search). ok is false when the loader cannot tell.
func Path(h uintptr) (path string, ok bool) {
	fn := dlinfo()
	if fn == 0 || h == 0 {
		return "", false
	}
	// int dlinfo(void *handle, int request, void *info); info receives a
	// struct link_map* whose second field is char *l_name.
	var lm unsafe.Pointer
	r := Call3(fn, h, rtldDILinkmap, uintptr(unsafe.Pointer(&lm)))
	if int32(r) != 0 || lm == nil {
		return "", false
	}
	name := *(*unsafe.Pointer)(unsafe.Add(lm, unsafe.Sizeof(uintptr(0))))
	s := cstr.GoString(name)
	return s, s != ""
}
