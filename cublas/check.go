package cublas

import (
	"fmt"
	"math"
	"strings"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/memory"
)

// Every routine checks its arguments before cuBLAS sees them, and a refused
// call queues nothing: the handle, its stream and every buffer open and on
// the handle's device; sizes not negative and within cuBLAS's 32-bit int;
// increments at least 1; leading dimensions at least the rows (and 1);
// every vector and matrix within its buffer; the operands' shapes agreeing
// as the routine says; scalars of the handle's pointer mode. The errors wrap
// driver.ErrInvalidValue (driver.ErrClosed, driver.ErrWrongContext).

// maxInt is the largest size cuBLAS's int arguments take.
const maxInt = math.MaxInt32

// wrapOnce wraps a routine's error with op and the handle it was called
// with (formatted from format and args), unless it is a check's error,
// which names op already.
func wrapOnce(op string, err error, format string, args ...any) error {
	if strings.HasPrefix(err.Error(), op+": ") {
		return err
	}
	return fmt.Errorf("%s: %s: %w", op, fmt.Sprintf(format, args...), err)
}

func invalidf(op, format string, args ...any) error {
	return fmt.Errorf("%s: %s: %w", op, fmt.Sprintf(format, args...), driver.ErrInvalidInput)
}

// span returns the elements n things at stride inc (after the first) span,
// and whether that fits an int.
func span(n, inc, first int) (int, bool) {
	if n == 0 {
		return 0, true
	}
	if inc != 0 && n-1 > (math.MaxInt-first)/inc {
		return 0, false
	}
	return (n-1)*inc + first, true
}

// vector checks v for op, as role.
func vector[T any](h site, op, role string, v Vector[T]) error {
	if err := buffer(h, op, role, v.Buf); err != nil {
		return err
	}
	if v.N < 0 || v.N > maxInt || v.Inc < 1 || v.Inc > maxInt {
		return invalidf(op, "%s: N %d, Inc %d (N >= 0, Inc >= 1, both at most %d)", role, v.N, v.Inc, maxInt)
	}
	if n, ok := span(v.N, v.Inc, 1); !ok || n > v.Buf.Len() {
		return invalidf(op, "%s: %d elements at stride %d do not fit in %s (%d elements)", role, v.N, v.Inc, v.Buf, v.Buf.Len())
	}
	return nil
}

// matrix checks m for op, as role.
func matrix[T any](h site, op, role string, m Matrix[T]) error {
	if err := buffer(h, op, role, m.Buf); err != nil {
		return err
	}
	if !m.Op.valid() {
		return invalidf(op, "%s: %v", role, m.Op)
	}
	if m.rowMajor {
		return invalidf(op, "%s is row-major (RowMajor): this routine takes column-major matrices (Mat); a product (Gemm, GemmEx, their strided-batched forms, Mul) takes row-major A, B and C, all three", role)
	}
	if m.Rows < 0 || m.Cols < 0 || m.Rows > maxInt || m.Cols > maxInt || m.LD > maxInt {
		return invalidf(op, "%s: %d×%d", role, m.Rows, m.Cols)
	}
	if m.LD < max(1, m.Rows) {
		return invalidf(op, "%s: LD %d < max(1, Rows) = %d (the matrix is column-major: LD is the distance between columns)", role, m.LD, max(1, m.Rows))
	}
	if m.Rows == 0 {
		return nil
	}
	if n, ok := span(m.Cols, m.LD, m.Rows); !ok || n > m.Buf.Len() {
		return invalidf(op, "%s: %d×%d with LD %d spans %d elements; %s holds %d", role, m.Rows, m.Cols, m.LD, n, m.Buf, m.Buf.Len())
	}
	return nil
}

// batch checks that count matrices like m, stride elements apart, fit in
// m's buffer.
func batch[T any](op, role string, m Matrix[T], stride, count int) error {
	if stride < 0 {
		return invalidf(op, "%s: stride %d", role, stride)
	}
	if m.Rows == 0 || m.Cols == 0 || count == 0 {
		return nil
	}
	one, _ := span(m.Cols, m.LD, m.Rows)
	if n, ok := span(count, stride, one); !ok || n > m.Buf.Len() {
		return invalidf(op, "%s: %d matrices of %d elements, %d apart, do not fit in %s (%d elements)", role, count, one, stride, m.Buf, m.Buf.Len())
	}
	return nil
}

// site is what the checks need of the object a call is made with (a
// Handle, an Lt): the device its buffers must be on.
type site interface{ device() *driver.Device }

func buffer[T any](h site, op, role string, b *memory.Buffer[T]) error {
	if b == nil {
		return invalidf(op, "%s: nil buffer", role)
	}
	return onDevice(h.device(), op, role, b.Closed(), b.Context(), b)
}

// scalar returns s for the seam, checked against the handle's pointer mode
// (read under the handle's lock).
func scalar[T Elem](h *Handle, op, role string, s Scalar[T]) (backend.BLASScalar, error) {
	if s.buf == nil {
		if h.mode != HostPointers {
			return backend.BLASScalar{}, invalidf(op, "%s: a Host scalar with a handle in DevicePointers mode", role)
		}
		v := complex128(complexOf(s.value))
		return backend.BLASScalar{Re: real(v), Im: imag(v)}, nil
	}
	if h.mode != DevicePointers {
		return backend.BLASScalar{}, invalidf(op, "%s: an OnDevice scalar with a handle in HostPointers mode", role)
	}
	if err := buffer(h, op, role, s.buf); err != nil {
		return backend.BLASScalar{}, err
	}
	if s.buf.Len() < 1 {
		return backend.BLASScalar{}, invalidf(op, "%s: %s is empty", role, s.buf)
	}
	return backend.DeviceScalar(s.buf.Ptr()), nil
}

// complexOf returns v as a complex128 (through a pointer: boxing a
// float32 into an interface would allocate).
func complexOf[T Elem](v T) complex128 {
	switch x := any(&v).(type) {
	case *float32:
		return complex(float64(*x), 0)
	case *float64:
		return complex(*x, 0)
	case *complex64:
		return complex128(*x)
	case *complex128:
		return *x
	}
	return 0
}

// resultBuf checks a device result buffer.
func resultBuf[T any](h *Handle, op string, r *memory.Buffer[T]) error {
	if h.mode != DevicePointers {
		return invalidf(op, "a device result with a handle in HostPointers mode (SetPointerMode(DevicePointers))")
	}
	if err := buffer(h, op, "result", r); err != nil {
		return err
	}
	if r.Len() < 1 {
		return invalidf(op, "result: %s is empty", r)
	}
	return nil
}

func hostMode(h *Handle, op string) error {
	if h.mode != HostPointers {
		return invalidf(op, "a host result with a handle in DevicePointers mode (use the To form)")
	}
	return nil
}
