//go:build linux && (amd64 || arm64)

package libcuda

import (
	"os"
	"testing"
	"unsafe"

	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/cstr"
	"github.com/nocgo/cuda/internal/dl"
)

// describe asks the real driver for the name and text of code
// (cuGetErrorName, cuGetErrorString); ok is false for a code it does not
// know.
func (l *libcuda) describe(t *testing.T, code int) (name, text string, ok bool) {
	fn, err := l.fn(symGetErrorName)
	if err != nil {
		t.Fatal(err)
	}
	fs, err := l.fn(symGetErrorString)
	if err != nil {
		t.Fatal(err)
	}
	var p, q unsafe.Pointer
	if r := dl.Call2(fn, uintptr(code), uintptr(unsafe.Pointer(&p))); uint32(r) != 0 || p == nil {
		return "", "", false
	}
	if r := dl.Call2(fs, uintptr(code), uintptr(unsafe.Pointer(&q))); uint32(r) != 0 || q == nil {
		return cstr.GoString(p), "", true
	}
	return cstr.GoString(p), cstr.GoString(q), true
}

// The static table of backend.Result names every code the real driver
// names, with the driver's own text.
func TestResultTableMatchesDriver(t *testing.T) {
	api, err := Open()
	if err != nil {
		if os.Getenv("NOCGO_CUDA_REQUIRE_GPU") == "1" {
			t.Fatalf("NOCGO_CUDA_REQUIRE_GPU=1 but the real driver does not load: %v", err)
		}
		t.Skipf("no CUDA driver: %v", err)
	}
	l := api.(*libcuda)
	known := 0
	for code := 0; code < 1200; code++ {
		name, text, ok := l.describe(t, code)
		if !ok {
			continue
		}
		known++
		r := backend.Result(code)
		if r.Name() != name {
			t.Errorf("code %d: the table names it %q, the driver %q (%q)", code, r.Name(), name, text)
			continue
		}
		if want := name + ": " + text; code != 0 && r.Error() != want {
			t.Errorf("code %d: the table's text is %q, the driver's %q", code, r.Error(), want)
		}
	}
	if known < 50 {
		t.Fatalf("the driver named only %d codes", known)
	}
	t.Logf("the driver names %d codes; each is in the table", known)
}
