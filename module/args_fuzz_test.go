package module_test

import (
	"encoding/binary"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/module"
)

// recLaunch is a backend whose cuLaunchKernel runs nothing: it counts the
// launches and copies out what kernelParams (a void**, one pointer per
// parameter) points at, for the parameter sizes the test expects.
type recLaunch struct {
	fake.Backend
	st *recState
}

type recState struct {
	launches int
	sizes    []int    // the parameter sizes of the kernel being launched
	got      [][]byte // what the last launch passed for each parameter
}

func (r recLaunch) LaunchKernel(f uintptr, grid, block [3]uint32, sharedMem uint32, s uintptr, params unsafe.Pointer) error {
	r.st.launches++
	if len(r.st.sizes) > 0 && params == nil {
		return driver.ErrInvalidValue
	}
	r.st.got = r.st.got[:0]
	for i, n := range r.st.sizes {
		p := *(*unsafe.Pointer)(unsafe.Add(params, uintptr(i)*unsafe.Sizeof(params)))
		if p == nil {
			return driver.ErrInvalidValue
		}
		r.st.got = append(r.st.got, append([]byte(nil), unsafe.Slice((*byte)(p), n)...))
	}
	return nil
}

// fuzzParam is a kernel parameter drawn from the fuzz input.
type fuzzParam struct {
	ptx   string // ".u32", or ".b8" for an array
	size  int
	align int
	goTyp reflect.Type // the fake body's parameter type: same size and alignment
}

var fuzzScalars = []struct {
	ptx string
	t   reflect.Type
}{
	{".u8", reflect.TypeFor[uint8]()},
	{".u16", reflect.TypeFor[uint16]()},
	{".u32", reflect.TypeFor[uint32]()},
	{".u64", reflect.TypeFor[uint64]()},
	{".f32", reflect.TypeFor[float32]()},
	{".f64", reflect.TypeFor[float64]()},
}

var fuzzUints = []reflect.Type{reflect.TypeFor[uint8](), reflect.TypeFor[uint16](), reflect.TypeFor[uint32](), reflect.TypeFor[uint64]()}

// fuzzReader hands out the fuzz input byte by byte, then zeros.
type fuzzReader struct{ b []byte }

func (r *fuzzReader) byte() byte {
	if len(r.b) == 0 {
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *fuzzReader) u64() uint64 {
	var b [8]byte
	for i := range b {
		b[i] = r.byte()
	}
	return binary.LittleEndian.Uint64(b[:])
}

// Types for the values the fuzz target passes.
type (
	fuzzPair   struct{ A, B int32 }
	fuzzPadded struct {
		A uint8
		B uint32
	}
	fuzzMixed struct {
		X float32
		Y [3]uint16
		Z bool
	}
	fuzzNamed   uint16
	fuzzEmpty   struct{}
	fuzzWithPtr struct {
		A int32
		P *int32
	}
	fuzzDevAddr struct{ addr uintptr }
)

func (d fuzzDevAddr) Ptr() uintptr { return d.addr }

// fuzzBuffers are the buffers the fuzz target passes.
type fuzzBuffers struct {
	f32, f64, u8, pair, empty, closed, closedPair any
	nilF32, nilArr                                any
}

const fuzzKinds = 45

// fuzzValue returns argument value kind k built from payload x.
func fuzzValue(k byte, x uint64, bufs *fuzzBuffers, local *int32) any {
	switch k % fuzzKinds {
	case 0:
		return x&1 == 1
	case 1:
		return int8(x)
	case 2:
		return uint8(x)
	case 3:
		return int16(x)
	case 4:
		return uint16(x)
	case 5:
		return int32(x)
	case 6:
		return uint32(x)
	case 7:
		return int64(x)
	case 8:
		return x
	case 9:
		return int(x)
	case 10:
		return uint(x)
	case 11:
		return uintptr(x)
	case 12:
		return math.Float32frombits(uint32(x))
	case 13:
		return math.Float64frombits(x)
	case 14:
		return complex(math.Float32frombits(uint32(x)), math.Float32frombits(uint32(x>>32)))
	case 15:
		return complex(math.Float64frombits(x), -math.Float64frombits(^x))
	case 16:
		return nil
	case 17:
		return unsafe.Pointer(local)
	case 18:
		return bufs.f32
	case 19:
		return bufs.f64
	case 20:
		return bufs.u8
	case 21:
		return bufs.pair
	case 22:
		return bufs.empty
	case 23:
		return bufs.closed
	case 24:
		return bufs.closedPair
	case 25:
		return bufs.nilF32
	case 26:
		return bufs.nilArr
	case 27:
		return [3]uint8{uint8(x), uint8(x >> 8), uint8(x >> 16)}
	case 28:
		return fuzzPair{int32(x), int32(x >> 32)}
	case 29:
		return fuzzPadded{uint8(x), uint32(x >> 32)}
	case 30:
		return fuzzMixed{math.Float32frombits(uint32(x)), [3]uint16{uint16(x >> 32), uint16(x >> 48), 7}, x&1 == 0}
	case 31:
		return [0]int32{}
	case 32:
		return fuzzEmpty{}
	case 33:
		return fmt.Sprint(x)
	case 34:
		return []float32{float32(x)}
	case 35:
		return map[int]int{1: int(x)}
	case 36:
		return local
	case 37:
		return fuzzDevAddr{uintptr(x)}
	case 38:
		return &fuzzDevAddr{uintptr(x)}
	case 39:
		return fuzzNamed(x)
	case 40:
		return [2]float64{math.Float64frombits(x), float64(x)}
	case 41:
		return func() {}
	case 42:
		return make(chan int)
	case 43:
		return fuzzWithPtr{int32(x), local}
	default:
		return [4]uint16{uint16(x), uint16(x >> 16), uint16(x >> 32), uint16(x >> 48)}
	}
}

// plainType is the test's own model of what passes by value: numbers,
// bools, and non-empty structs and arrays of them.
func plainType(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		return true
	case reflect.Array:
		return plainType(t.Elem())
	case reflect.Struct:
		if t.Size() == 0 {
			return false
		}
		for i := range t.NumField() {
			if !plainType(t.Field(i).Type) {
				return false
			}
		}
		return true
	}
	return false
}

// expect is what passing v for a parameter of size bytes must do: ok with
// the bytes the kernel receives, or an error wrapping ErrArgs (and closed:
// driver.ErrClosed too).
type expect struct {
	ok     bool
	want   []byte
	closed bool
}

// typeFits is the test's own model of the type rules where the PTX gives
// the parameter's type: .f takes floats, .u any integer, bool or buffer,
// a struct parameter (.b8 array) structs, arrays and complex numbers no
// more aligned than it, and a [N]byte fits anything.
func typeFits(t reflect.Type, p *fuzzParam) bool {
	if p == nil {
		return true
	}
	if t.Kind() == reflect.Array && t.Elem().Kind() == reflect.Uint8 {
		return true
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Array, reflect.Complex64, reflect.Complex128:
		return p.ptx == ".b8" && t.Align() <= p.align
	case reflect.Float32, reflect.Float64:
		return p.ptx[1] == 'f'
	}
	return p.ptx[1] == 'u' // integers, bools, uintptrs and buffers
}

func expectArg(v any, p *fuzzParam) expect {
	if v == nil {
		return expect{}
	}
	size := -1
	if p != nil {
		size = p.size
	}
	rv := reflect.ValueOf(v)
	t := rv.Type()
	if t.Kind() == reflect.Pointer && strings.HasPrefix(t.Elem().Name(), "Buffer[") && t.Elem().PkgPath() == "github.com/nocgo/cuda/memory" {
		if size == 8 && !typeFits(t, p) {
			return expect{}
		}
		if rv.IsNil() {
			return expect{}
		}
		if rv.MethodByName("Closed").Call(nil)[0].Bool() {
			return expect{closed: true}
		}
		if size != 8 {
			return expect{}
		}
		ptr := rv.MethodByName("Ptr").Call(nil)[0].Uint()
		return expect{ok: true, want: binary.LittleEndian.AppendUint64(nil, ptr)}
	}
	// A type with a Ptr method is refused, even a plain one: only buffers
	// pass as device pointers.
	if t.Implements(reflect.TypeFor[interface{ Ptr() uintptr }]()) || !plainType(t) || int(t.Size()) != size || !typeFits(t, p) {
		return expect{}
	}
	// The value's memory (padding included, copied as the runtime copies
	// it); for scalars on a little-endian machine, the little-endian bytes.
	c := reflect.New(t)
	c.Elem().Set(rv)
	want := append([]byte(nil), unsafe.Slice((*byte)(c.UnsafePointer()), size)...)
	switch x := v.(type) {
	case bool:
		if x {
			want = []byte{1}
		} else {
			want = []byte{0}
		}
	case int32:
		want = binary.LittleEndian.AppendUint32(nil, uint32(x))
	case uint64:
		want = binary.LittleEndian.AppendUint64(nil, x)
	case float64:
		want = binary.LittleEndian.AppendUint64(nil, math.Float64bits(x))
	}
	return expect{ok: true, want: want}
}

// checkArgErr: a refused argument is an error wrapping ErrArgs (and
// driver.ErrClosed for a closed buffer).
func checkArgErr(t *testing.T, err error, e expect, what string) {
	t.Helper()
	require.Error(t, err, what)
	require.ErrorIs(t, err, module.ErrArgs, what)
	if e.closed {
		require.ErrorIs(t, err, driver.ErrClosed, what)
	}
}

// FuzzLaunchArgs: for a kernel signature and argument values drawn from the
// input, Launch, Args and Args.Set never panic; an argument count, type or
// size that does not fit is an error wrapping ErrArgs (driver.ErrClosed too for a
// closed buffer), and nothing is launched; what fits is launched once, and
// the kernel receives, for each parameter, the value's bytes (a buffer's
// device address). Set keeps an argument's value when it refuses the new one.
//
// Input: byte 0: the parameter count (mod 9); per parameter a type byte (mod
// 7: .u8 .u16 .u32 .u64 .f32 .f64, or a .b8 array whose next byte picks its
// .align and length); a count byte (mod 8: 0 one argument too many, 1 one
// too few); per argument a kind byte (see fuzzValue) and 8 payload bytes.
func FuzzLaunchArgs(f *testing.F) {
	st := &recState{}
	fb := fake.NewBackend(fakeOptions()...)
	drv, err := driver.New(recLaunch{fb, st})
	require.NoError(f, err)
	ctx, s := setup(f, drv)
	registered := map[string]bool{}

	var bufs fuzzBuffers
	{
		b1, err := memory.Alloc[float32](ctx, 4)
		require.NoError(f, err)
		b2, err := memory.Alloc[float64](ctx, 3)
		require.NoError(f, err)
		b3, err := memory.Alloc[uint8](ctx, 17)
		require.NoError(f, err)
		b4, err := memory.Alloc[[2]int32](ctx, 2)
		require.NoError(f, err)
		b5, err := memory.Alloc[int16](ctx, 0)
		require.NoError(f, err)
		c1, err := memory.Alloc[int32](ctx, 4)
		require.NoError(f, err)
		require.NoError(f, c1.Close())
		c2, err := memory.Alloc[[2]int32](ctx, 4)
		require.NoError(f, err)
		require.NoError(f, c2.Close())
		f.Cleanup(func() { b1.Close(); b2.Close(); b3.Close(); b4.Close(); b5.Close() })
		bufs = fuzzBuffers{f32: b1, f64: b2, u8: b3, pair: b4, empty: b5, closed: c1, closedPair: c2,
			nilF32: (*memory.Buffer[float32])(nil), nilArr: (*memory.Buffer[[3]uint8])(nil)}
	}

	for _, seed := range fuzzSeeds {
		f.Add(seed)
	}
	cfg := module.Config{Grid: module.Dim(1), Block: module.Dim(1)}

	f.Fuzz(func(t *testing.T, data []byte) {
		r := &fuzzReader{data}
		local := new(int32)

		// The signature, its PTX, and a fake body of the same layout.
		np := int(r.byte() % 9)
		params := make([]fuzzParam, np)
		var name strings.Builder
		name.WriteString("fz")
		for i := range params {
			sel := r.byte() % 7
			if int(sel) < len(fuzzScalars) {
				sc := fuzzScalars[sel]
				params[i] = fuzzParam{ptx: sc.ptx, size: int(sc.t.Size()), align: int(sc.t.Size()), goTyp: sc.t}
				name.WriteString("_" + sc.ptx[1:])
				continue
			}
			b := r.byte()
			ai := int(b % 4)
			n := 1 + int(b/4%6)
			et := fuzzUints[ai]
			params[i] = fuzzParam{ptx: ".b8", size: n << ai, align: 1 << ai, goTyp: reflect.ArrayOf(n, et)}
			fmt.Fprintf(&name, "_a%dx%d", 1<<ai, n)
		}
		kname := name.String()
		var ptx strings.Builder
		fmt.Fprintf(&ptx, ".version 8.8\n.target sm_90\n.address_size 64\n.visible .entry %s(", kname)
		for i, p := range params {
			if i > 0 {
				ptx.WriteString(",")
			}
			if p.ptx == ".b8" {
				fmt.Fprintf(&ptx, "\n\t.param .align %d .b8 %s_param_%d[%d]", p.align, kname, i, p.size)
			} else {
				fmt.Fprintf(&ptx, "\n\t.param %s %s_param_%d", p.ptx, kname, i)
			}
		}
		ptx.WriteString("\n)\n{\n\tret;\n}\n")
		if !registered[kname] {
			in := []reflect.Type{reflect.TypeFor[fake.Thread]()}
			for _, p := range params {
				in = append(in, p.goTyp)
			}
			body := reflect.MakeFunc(reflect.FuncOf(in, nil, false), func([]reflect.Value) []reflect.Value { return nil })
			require.NoError(t, fb.Fake().RegisterKernel(kname, body.Interface()))
			registered[kname] = true
		}
		m, err := module.Load(ctx, []byte(ptx.String()))
		require.NoError(t, err, ptx.String())
		defer m.Close()
		fn, err := m.Function(kname)
		require.NoError(t, err)

		// The layout: C alignment of each parameter.
		var want []module.Param
		sizes := make([]int, np)
		off := 0
		for i, p := range params {
			off = (off + p.align - 1) &^ (p.align - 1)
			want = append(want, module.Param{Offset: off, Size: p.size})
			sizes[i] = p.size
			off += p.size
		}
		got, err := fn.Params()
		require.NoError(t, err)
		if np == 0 {
			assert.Empty(t, got)
		} else {
			require.Equal(t, want, got)
		}
		st.sizes = sizes

		// The arguments.
		na := np
		switch r.byte() % 8 {
		case 0:
			na++
		case 1:
			if na > 0 {
				na--
			}
		}
		args := make([]any, na)
		for i := range args {
			k := r.byte()
			args[i] = fuzzValue(k, r.u64(), &bufs, local)
		}
		exp := make([]expect, na)
		firstBad := -1
		for i, a := range args {
			var p *fuzzParam
			if i < np {
				p = &params[i]
			}
			exp[i] = expectArg(a, p)
			if !exp[i].ok && firstBad < 0 {
				firstBad = i
			}
		}

		check := func(what string, err error, before int) {
			t.Helper()
			switch {
			case na != np:
				require.ErrorIs(t, err, module.ErrArgs, what)
				require.Equal(t, before, st.launches, "%s: nothing launched", what)
			case firstBad >= 0:
				checkArgErr(t, err, exp[firstBad], what)
				require.Equal(t, before, st.launches, "%s: nothing launched", what)
			default:
				require.NoError(t, err, what)
			}
		}
		checkLaunched := func(what string, before int, want [][]byte) {
			t.Helper()
			require.Equal(t, before+1, st.launches, "%s: launched once", what)
			require.Len(t, st.got, np)
			for i := range np {
				require.Equal(t, want[i], st.got[i], "%s: parameter %d", what, i)
			}
		}
		wants := func() [][]byte {
			w := make([][]byte, na)
			for i := range exp {
				w[i] = exp[i].want
			}
			return w
		}

		before := st.launches
		err = fn.Launch(s, cfg, args...)
		check("Launch", err, before)
		if err == nil {
			checkLaunched("Launch", before, wants())
		}

		before = st.launches
		a, err := fn.Args(args...)
		check("Args", err, before)
		if err == nil {
			require.NotNil(t, a)
			assert.Equal(t, np, a.Len())
			require.NoError(t, fn.LaunchArgs(s, cfg, a))
			checkLaunched("Args", before, wants())
		} else {
			assert.Nil(t, a)
		}

		// Set, argument by argument, on Args of zero bytes; a refused value
		// leaves the argument as it was.
		zeros := make([]any, np)
		model := make([][]byte, np)
		for i, p := range params {
			zeros[i] = reflect.New(reflect.ArrayOf(p.size, reflect.TypeFor[uint8]())).Elem().Interface()
			model[i] = make([]byte, p.size)
		}
		a, err = fn.Args(zeros...)
		require.NoError(t, err)
		before = st.launches
		for i, v := range args {
			if np == 0 {
				require.ErrorIs(t, a.Set(0, v), module.ErrArgs)
				continue
			}
			j := i % np
			e := expectArg(v, &params[j])
			err := a.Set(j, v)
			if e.ok {
				require.NoError(t, err, "Set(%d, %T)", j, v)
				model[j] = e.want
			} else {
				checkArgErr(t, err, e, fmt.Sprintf("Set(%d, %T)", j, v))
			}
		}
		require.ErrorIs(t, a.Set(np, uint8(0)), module.ErrArgs)
		require.ErrorIs(t, a.Set(-1, uint8(0)), module.ErrArgs)
		require.Equal(t, before, st.launches, "Set launches nothing")
		require.NoError(t, fn.LaunchArgs(s, cfg, a))
		checkLaunched("Set", before, model)
	})
}

// fuzzSeeds are the seeds added in code; testdata/fuzz/FuzzLaunchArgs holds
// the committed corpus.
var fuzzSeeds = [][]byte{
	{0, 2},    // no parameters, no arguments
	{0, 0, 5}, // no parameters, one argument
	{3, 3, 3, 2, 2, 18, 0, 0, 0, 0, 0, 0, 0, 0, 18, 0, 0, 0, 0, 0, 0, 0, 0, 5, 0x40, 0, 0, 0, 0, 0, 0, 0}, // segscale's (u64, u64, u32): out, out, int32
}
