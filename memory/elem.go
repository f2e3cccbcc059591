package memory

import (
	"fmt"
	"math"
	"reflect"
	"sync"

	"github.com/nocgo/cuda/driver"
)

// elemInfo is what the package knows about an element type T: its size and
// name, or why it cannot live in device memory.
type elemInfo struct {
	size  uintptr
	align uintptr
	name  string
	err   error
}

// elems caches one *elemInfo per element type, so reflection runs once per
// type, at the first allocation, borrow or host allocation of that type.
var elems sync.Map // reflect.Type -> *elemInfo

// elemOf returns the cached description of T. It uses reflection and is only
// called where a buffer is made, never on a copy.
func elemOf[T any]() *elemInfo {
	t := reflect.TypeFor[T]()
	if e, ok := elems.Load(t); ok {
		return e.(*elemInfo)
	}
	e := &elemInfo{size: t.Size(), align: uintptr(t.Align()), name: t.String()}
	if why := unfit(t); why != "" {
		e.err = fmt.Errorf("element type %s cannot live in device memory: %s: %w", t, why, driver.ErrInvalidInput)
	} else if t.Size() == 0 {
		e.err = fmt.Errorf("element type %s has size zero: %w", t, driver.ErrInvalidInput)
	}
	v, _ := elems.LoadOrStore(t, e)
	return v.(*elemInfo)
}

// unfit says why values of t cannot be copied byte for byte to and from the
// device ("" when they can): t must hold no Go pointers of any kind.
func unfit(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		return ""
	case reflect.Array:
		if why := unfit(t.Elem()); why != "" {
			return fmt.Sprintf("array element %s: %s", t.Elem(), why)
		}
		return ""
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if why := unfit(f.Type); why != "" {
				return fmt.Sprintf("field %s: %s", f.Name, why)
			}
		}
		return ""
	case reflect.Pointer, reflect.UnsafePointer:
		return "it contains a pointer"
	case reflect.Slice:
		return "it contains a slice"
	case reflect.String:
		return "it contains a string"
	case reflect.Map:
		return "it contains a map"
	case reflect.Interface:
		return "it contains an interface"
	case reflect.Chan:
		return "it contains a channel"
	case reflect.Func:
		return "it contains a func"
	}
	return fmt.Sprintf("kind %s is not supported", t.Kind())
}

// byteSize returns n elements of e in bytes (0 for n == 0), or an error for
// n < 0 or a size that does not fit in an int.
func (e *elemInfo) byteSize(n int) (uintptr, error) {
	if n < 0 {
		return 0, fmt.Errorf("n=%d: the element count must not be negative: %w", n, driver.ErrInvalidInput)
	}
	if uint64(n) > uint64(math.MaxInt)/uint64(e.size) {
		return 0, fmt.Errorf("n=%d elements of %d bytes overflow the address space: %w", n, e.size, driver.ErrInvalidInput)
	}
	return uintptr(n) * e.size, nil
}

// sizeOf returns the size of n elements of e in bytes, or op's error for an
// element type the package refuses or a bad count.
func (e *elemInfo) sizeOf(op string, n int) (uintptr, error) {
	if e.err != nil {
		return 0, fmt.Errorf("%s: %w", op, e.err)
	}
	size, err := e.byteSize(n)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", op, err)
	}
	return size, nil
}
