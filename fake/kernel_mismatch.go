package fake

import (
	"fmt"

	"github.com/nocgo/cuda/driver"
)

// refuseBody records, for LoadError, why the Go body k registered for a
// PTX entry cannot run it (the body has the wrong shape, or its parameters
// are not the entry's: count or sizes), and returns the load's error,
// ErrInvalidImage. The JIT's error log (cuModuleLoadDataEx) carries the
// record, so module.Compile's error says it.
func (b *fakeBackend) refuseBody(k *kernel, e ptxEntry) error {
	var why string
	switch {
	case k.err != nil:
		why = k.err.Error()
	case len(k.params) != len(e.sizes):
		why = fmt.Sprintf("it takes %d parameters after the fake.Thread, the PTX entry %d", len(k.params), len(e.sizes))
	default:
		for i, p := range k.params {
			if e.sizes[i] != 0 && e.sizes[i] != p.size {
				why = fmt.Sprintf("parameter %d is %s of %d bytes, the PTX entry's is %d bytes", i, article(p.typ.String()), p.size, e.sizes[i])
				break
			}
		}
	}
	body := "its body"
	if k.fn.IsValid() {
		body = k.fn.Type().String()
	}
	err := fmt.Errorf("%w: the Go body of kernel %s, %s, does not match the kernel's PTX: %s (a body takes the CUDA C parameters in Go: float is float32, int int32, a pointer fake.Ptr)",
		driver.ErrInvalidImage, e.name, body, why)
	b.interp.mu.Lock()
	b.interp.loadErr = err
	b.interp.mu.Unlock()
	return driver.ErrInvalidImage
}

// article returns "a T" or "an T".
func article(t string) string {
	switch t[0] {
	case 'a', 'e', 'i', 'o':
		return "an " + t
	}
	return "a " + t
}

// fits reports whether k can run the PTX entry e: a body of the right
// shape with the entry's parameter count and sizes.
func (k *kernel) fits(e ptxEntry) bool {
	if k.err != nil || len(k.params) != len(e.sizes) {
		return false
	}
	for i, p := range k.params {
		if e.sizes[i] != 0 && e.sizes[i] != p.size {
			return false
		}
	}
	return true
}
