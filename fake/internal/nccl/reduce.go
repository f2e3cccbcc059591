package nccl

import (
	"math"
	"unsafe"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
)

// The arithmetic of the fake's collectives is NCCL's: reductions in the
// element type, ranks combined in rank order (NCCL's order depends on its
// algorithm, so float results may differ from it in the last bits where
// the order matters). Avg is NCCL's: for floating types, each rank's value
// multiplied by 1/nranks (rounded to the type) and the products summed; for
// integers, the sum divided by nranks (truncated). Float16 and BFloat16
// values are converted to float32 for each operation, and every result is
// rounded back to the 16-bit type (to nearest, ties to even), as the GPU's
// half-precision instructions do.

// compute performs inst for all its ranks: it reads every input first, so
// in-place forms see the inputs as they were. Execution lock held.
func (r *Room) compute(inst *collInst) error {
	r.accessed(inst)
	p0 := inst.parts[0]
	size := uintptr(p0.dt.Size())
	n := len(inst.parts)
	read := func(p uintptr, bytes uintptr) ([]byte, error) {
		s, err := r.core.Span(p, bytes)
		if err != nil {
			return nil, driver.ErrIllegalAddress
		}
		return append([]byte(nil), s...), nil
	}
	write := func(p uintptr, data []byte) error {
		s, err := r.core.Span(p, uintptr(len(data)))
		if err != nil {
			return driver.ErrIllegalAddress
		}
		copy(s, data)
		return nil
	}
	switch inst.kind {
	case collTransfer:
		snd, rcv := inst.parts[0], inst.parts[1]
		data, err := read(snd.send, min(snd.count, rcv.count)*size)
		if err != nil {
			return err
		}
		return write(rcv.recv, data)
	case collBroadcast:
		root := inst.parts[p0.root]
		data, err := read(root.send, root.count*size)
		if err != nil {
			return err
		}
		for _, p := range inst.parts {
			if err := write(p.recv, data); err != nil {
				return err
			}
		}
		return nil
	case collAllGather:
		var all []byte
		for _, p := range inst.parts {
			data, err := read(p.send, p.count*size)
			if err != nil {
				return err
			}
			all = append(all, data...)
		}
		for _, p := range inst.parts {
			if err := write(p.recv, all); err != nil {
				return err
			}
		}
		return nil
	}
	// The reductions.
	in := make([][]byte, n)
	per := p0.count * size
	if inst.kind == collReduceScatter {
		per *= uintptr(n)
	}
	for r, p := range inst.parts {
		data, err := read(p.send, per)
		if err != nil {
			return err
		}
		in[r] = data
	}
	out := reduce(p0.dt, p0.op, in)
	switch inst.kind {
	case collAllReduce:
		for _, p := range inst.parts {
			if err := write(p.recv, out); err != nil {
				return err
			}
		}
	case collReduce:
		return write(inst.parts[p0.root].recv, out)
	case collReduceScatter:
		block := p0.count * size
		for r, p := range inst.parts {
			if err := write(p.recv, out[uintptr(r)*block:uintptr(r+1)*block]); err != nil {
				return err
			}
		}
	}
	return nil
}

// reduce combines the ranks' inputs element by element.
func reduce(dt backend.NCCLDataType, op backend.NCCLRedOp, in [][]byte) []byte {
	switch dt {
	case backend.NCCLInt8:
		return reduceNum[int8](op, in, false)
	case backend.NCCLUint8:
		return reduceNum[uint8](op, in, false)
	case backend.NCCLInt32:
		return reduceNum[int32](op, in, false)
	case backend.NCCLUint32:
		return reduceNum[uint32](op, in, false)
	case backend.NCCLInt64:
		return reduceNum[int64](op, in, false)
	case backend.NCCLUint64:
		return reduceNum[uint64](op, in, false)
	case backend.NCCLFloat32:
		return reduceNum[float32](op, in, true)
	case backend.NCCLFloat64:
		return reduceNum[float64](op, in, true)
	case backend.NCCLFloat16:
		return reduce16(op, in, halfToFloat32, float32ToHalf)
	default: // backend.NCCLBfloat16
		return reduce16(op, in, bf16ToFloat32, float32ToBF16)
	}
}

type number interface {
	int8 | uint8 | int32 | uint32 | int64 | uint64 | float32 | float64
}

func view[T any](b []byte) []T {
	var z T
	n := len(b) / int(unsafe.Sizeof(z))
	if n == 0 {
		return nil
	}
	out := make([]T, n) // a copy: b need not be aligned for T
	copy(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(out))), len(b)), b)
	return out
}

func bytesOf[T any](v []T) []byte {
	var z T
	if len(v) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(v))), len(v)*int(unsafe.Sizeof(z)))
}

func reduceNum[T number](op backend.NCCLRedOp, in [][]byte, float bool) []byte {
	vs := make([][]T, len(in))
	for r := range in {
		vs[r] = view[T](in[r])
	}
	out := make([]T, len(vs[0]))
	nr := T(len(in))
	for i := range out {
		if op == backend.NCCLAvg && float {
			scale := 1 / nr
			acc := vs[0][i] * scale
			for r := 1; r < len(vs); r++ {
				acc += vs[r][i] * scale
			}
			out[i] = acc
			continue
		}
		acc := vs[0][i]
		for r := 1; r < len(vs); r++ {
			acc = apply(op, acc, vs[r][i])
		}
		if op == backend.NCCLAvg {
			acc /= nr
		}
		out[i] = acc
	}
	return bytesOf(out)
}

func apply[T number](op backend.NCCLRedOp, a, b T) T {
	switch op {
	case backend.NCCLProd:
		return a * b
	case backend.NCCLMax:
		return max(a, b)
	case backend.NCCLMin:
		return min(a, b)
	}
	return a + b // Sum, and Avg before its division
}

func reduce16(op backend.NCCLRedOp, in [][]byte, toF func(uint16) float32, fromF func(float32) uint16) []byte {
	vs := make([][]uint16, len(in))
	for r := range in {
		vs[r] = view[uint16](in[r])
	}
	out := make([]uint16, len(vs[0]))
	round := func(f float32) float32 { return toF(fromF(f)) }
	scale := round(1 / float32(len(in)))
	for i := range out {
		if op == backend.NCCLAvg {
			acc := round(toF(vs[0][i]) * scale)
			for r := 1; r < len(vs); r++ {
				acc = round(acc + round(toF(vs[r][i])*scale))
			}
			out[i] = fromF(acc)
			continue
		}
		acc := toF(vs[0][i])
		for r := 1; r < len(vs); r++ {
			acc = round(apply(op, acc, toF(vs[r][i])))
		}
		out[i] = fromF(acc)
	}
	return bytesOf(out)
}

// halfToFloat32 converts IEEE 754 binary16 bits to a float32 (exactly).
func halfToFloat32(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	frac := uint32(h) & 0x3ff
	switch {
	case exp == 0x1f: // Inf, NaN
		return math.Float32frombits(sign | 0x7f800000 | frac<<13)
	case exp == 0 && frac == 0:
		return math.Float32frombits(sign)
	case exp == 0: // subnormal: frac × 2^-24
		f := float32(frac) * (1.0 / (1 << 24))
		if sign != 0 {
			f = -f
		}
		return f
	}
	return math.Float32frombits(sign | (exp+112)<<23 | frac<<13)
}

// float32ToHalf rounds a float32 to binary16, to nearest, ties to even.
func float32ToHalf(f float32) uint16 {
	bits := math.Float32bits(f)
	sign := uint16(bits>>16) & 0x8000
	exp := int32(bits>>23) & 0xff
	frac := bits & 0x7fffff
	switch {
	case exp == 0xff: // Inf, NaN (kept quiet)
		if frac != 0 {
			return sign | 0x7e00
		}
		return sign | 0x7c00
	case exp-127 > 15: // overflow
		return sign | 0x7c00
	}
	e := exp - 127 + 15
	if e <= 0 { // subnormal or zero in binary16
		if e < -10 {
			return sign
		}
		m := frac | 0x800000
		shift := uint32(14 - e)
		h := m >> shift
		rem := m & (1<<shift - 1)
		half := uint32(1) << (shift - 1)
		if rem > half || (rem == half && h&1 == 1) {
			h++
		}
		return sign | uint16(h)
	}
	h := uint32(e)<<10 | frac>>13
	rem := frac & 0x1fff
	if rem > 0x1000 || (rem == 0x1000 && h&1 == 1) {
		h++ // may carry into the exponent, up to Inf: right
	}
	return sign | uint16(h)
}

// bf16ToFloat32 converts bfloat16 bits to a float32 (exactly).
func bf16ToFloat32(h uint16) float32 { return math.Float32frombits(uint32(h) << 16) }

// float32ToBF16 rounds a float32 to bfloat16, to nearest, ties to even.
func float32ToBF16(f float32) uint16 {
	bits := math.Float32bits(f)
	if bits&0x7f800000 == 0x7f800000 && bits&0x7fffff != 0 {
		return uint16(bits>>16) | 0x40 // NaN, kept quiet
	}
	bits += 0x7fff + (bits>>16)&1
	return uint16(bits >> 16)
}
