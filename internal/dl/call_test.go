//go:build linux && (amd64 || arm64)

package dl_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"

	"github.com/ebitengine/purego"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/internal/cstr"
	"github.com/nocgo/cuda/internal/dl"
)

// cbytes returns s as a NUL-terminated C string on the heap. Callers keep it
// alive across the calls that read it (runtime.KeepAlive).
func cbytes(t testing.TB, s string) []byte {
	t.Helper()
	b, err := cstr.Bytes(s)
	require.NoError(t, err)
	return b
}

// garbage puts junk in the upper half of a 32-bit C int argument: the callee
// reads the low half only.
func garbage(v int32) uintptr { return 0xdeadbeef00000000 | uintptr(uint32(v)) }

// ints are the int arguments of the snprintf calls below (odd ones negative).
func ints() (v [11]int32) {
	for i := range v {
		v[i] = int32((i + 1) * 1001)
		if i%2 == 1 {
			v[i] = -v[i]
		}
	}
	return v
}

// Every arity, 0 to 14. From 3 on, snprintf (variadic: it reads its integers
// from the argument registers and then from the stack, in order, so every
// slot is checked) formats 0 to 11 C ints, each with garbage in its upper
// half, into a buffer on the goroutine stack.
func TestCallEveryArity(t *testing.T) {
	h := libc(t)
	assert.Equal(t, uintptr(os.Getpid()), dl.Call0(sym(t, h, "getpid")))
	assert.Equal(t, uintptr(42), dl.Call1(sym(t, h, "labs"), ^uintptr(41))) // labs(-42)
	strnlen := sym(t, h, "strnlen")
	hello := cbytes(t, "hello, world")
	assert.Equal(t, uintptr(5), dl.Call2(strnlen, uintptr(unsafe.Pointer(&hello[0])), 5))
	assert.Equal(t, uintptr(12), dl.Call2(strnlen, uintptr(unsafe.Pointer(&hello[0])), 100))
	runtime.KeepAlive(hello)

	snprintf := sym(t, h, "snprintf")
	v := ints()
	var f [12][]byte // f[k]: k times "%d"
	for k := range f {
		f[k] = cbytes(t, strings.TrimSpace(strings.Repeat("%d ", k)))
	}
	var buf [256]byte
	check := func(n int, r uintptr) {
		t.Helper()
		var want []string
		for _, x := range v[:n-3] {
			want = append(want, fmt.Sprint(x))
		}
		got := cstr.FromBytes(buf[:])
		assert.Equal(t, strings.Join(want, " "), got, "Call%d", n)
		assert.Equal(t, uintptr(len(got)), r, "Call%d: snprintf returns the length", n)
		buf = [256]byte{}
	}
	b, n := &buf[0], uintptr(len(buf))
	check(3, dl.Call3(snprintf, uintptr(unsafe.Pointer(b)), n, uintptr(unsafe.Pointer(&f[0][0]))))
	check(4, dl.Call4(snprintf, uintptr(unsafe.Pointer(b)), n, uintptr(unsafe.Pointer(&f[1][0])),
		garbage(v[0])))
	check(5, dl.Call5(snprintf, uintptr(unsafe.Pointer(b)), n, uintptr(unsafe.Pointer(&f[2][0])),
		garbage(v[0]), garbage(v[1])))
	check(6, dl.Call6(snprintf, uintptr(unsafe.Pointer(b)), n, uintptr(unsafe.Pointer(&f[3][0])),
		garbage(v[0]), garbage(v[1]), garbage(v[2])))
	check(7, dl.Call7(snprintf, uintptr(unsafe.Pointer(b)), n, uintptr(unsafe.Pointer(&f[4][0])),
		garbage(v[0]), garbage(v[1]), garbage(v[2]), garbage(v[3])))
	check(8, dl.Call8(snprintf, uintptr(unsafe.Pointer(b)), n, uintptr(unsafe.Pointer(&f[5][0])),
		garbage(v[0]), garbage(v[1]), garbage(v[2]), garbage(v[3]), garbage(v[4])))
	check(9, dl.Call9(snprintf, uintptr(unsafe.Pointer(b)), n, uintptr(unsafe.Pointer(&f[6][0])),
		garbage(v[0]), garbage(v[1]), garbage(v[2]), garbage(v[3]), garbage(v[4]), garbage(v[5])))
	check(10, dl.Call10(snprintf, uintptr(unsafe.Pointer(b)), n, uintptr(unsafe.Pointer(&f[7][0])),
		garbage(v[0]), garbage(v[1]), garbage(v[2]), garbage(v[3]), garbage(v[4]), garbage(v[5]),
		garbage(v[6])))
	check(11, dl.Call11(snprintf, uintptr(unsafe.Pointer(b)), n, uintptr(unsafe.Pointer(&f[8][0])),
		garbage(v[0]), garbage(v[1]), garbage(v[2]), garbage(v[3]), garbage(v[4]), garbage(v[5]),
		garbage(v[6]), garbage(v[7])))
	check(12, dl.Call12(snprintf, uintptr(unsafe.Pointer(b)), n, uintptr(unsafe.Pointer(&f[9][0])),
		garbage(v[0]), garbage(v[1]), garbage(v[2]), garbage(v[3]), garbage(v[4]), garbage(v[5]),
		garbage(v[6]), garbage(v[7]), garbage(v[8])))
	check(13, dl.Call13(snprintf, uintptr(unsafe.Pointer(b)), n, uintptr(unsafe.Pointer(&f[10][0])),
		garbage(v[0]), garbage(v[1]), garbage(v[2]), garbage(v[3]), garbage(v[4]), garbage(v[5]),
		garbage(v[6]), garbage(v[7]), garbage(v[8]), garbage(v[9])))
	check(14, dl.Call14(snprintf, uintptr(unsafe.Pointer(b)), n, uintptr(unsafe.Pointer(&f[11][0])),
		garbage(v[0]), garbage(v[1]), garbage(v[2]), garbage(v[3]), garbage(v[4]), garbage(v[5]),
		garbage(v[6]), garbage(v[7]), garbage(v[8]), garbage(v[9]), garbage(v[10])))
	runtime.KeepAlive(&f)
}

// The upper half of a 32-bit argument is not part of it.
func TestCallIntUpperHalf(t *testing.T) {
	snprintf := sym(t, libc(t), "snprintf")
	f := cbytes(t, "%d")
	var buf [32]byte
	r := dl.Call4(snprintf, uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)), uintptr(unsafe.Pointer(&f[0])),
		0xdeadbeef00000005)
	runtime.KeepAlive(f)
	assert.Equal(t, "5", cstr.FromBytes(buf[:]))
	assert.Equal(t, uintptr(1), r)
}

// call dispatches to CallN by len(a). Its arguments are uintptrs computed
// by the caller, so they may point to heap (or C) memory only: a Go stack
// address would be stale if the stack grew in between.
func call(fn uintptr, a ...uintptr) uintptr {
	switch len(a) {
	case 0:
		return dl.Call0(fn)
	case 1:
		return dl.Call1(fn, a[0])
	case 2:
		return dl.Call2(fn, a[0], a[1])
	case 3:
		return dl.Call3(fn, a[0], a[1], a[2])
	case 4:
		return dl.Call4(fn, a[0], a[1], a[2], a[3])
	case 5:
		return dl.Call5(fn, a[0], a[1], a[2], a[3], a[4])
	case 6:
		return dl.Call6(fn, a[0], a[1], a[2], a[3], a[4], a[5])
	case 7:
		return dl.Call7(fn, a[0], a[1], a[2], a[3], a[4], a[5], a[6])
	case 8:
		return dl.Call8(fn, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7])
	case 9:
		return dl.Call9(fn, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8])
	case 10:
		return dl.Call10(fn, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9])
	case 11:
		return dl.Call11(fn, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10])
	case 12:
		return dl.Call12(fn, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11])
	case 13:
		return dl.Call13(fn, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11], a[12])
	case 14:
		return dl.Call14(fn, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11], a[12], a[13])
	}
	panic("arity")
}

// Full 64-bit arguments arrive whole in every position: snprintf "%lx"
// into a heap buffer, for every arity from 3 to 14.
func TestCallWideArguments(t *testing.T) {
	snprintf := sym(t, libc(t), "snprintf")
	buf := make([]byte, 512)
	for k := 0; k <= 11; k++ {
		f := cbytes(t, strings.TrimSpace(strings.Repeat("%lx ", k)))
		a := []uintptr{uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)), uintptr(unsafe.Pointer(&f[0]))}
		var want []string
		for i := range k {
			x := uintptr(0x0102030405060708)*uintptr(i+1) ^ 0x8000000000000000
			a = append(a, x)
			want = append(want, fmt.Sprintf("%x", x))
		}
		r := call(snprintf, a...)
		runtime.KeepAlive(f)
		got := cstr.FromBytes(buf)
		assert.Equal(t, strings.Join(want, " "), got, "Call%d", k+3)
		assert.Equal(t, uintptr(len(got)), r)
	}
	runtime.KeepAlive(buf)
}

// C writes Go stack memory: memset, memcpy and snprintf into local arrays
// and variables, addresses converted in the call expression.
func TestCallWritesGoStack(t *testing.T) {
	h := libc(t)
	memset, memcpy, snprintf := sym(t, h, "memset"), sym(t, h, "memcpy"), sym(t, h, "snprintf")

	var a, b [64]byte
	r := dl.Call3(memset, uintptr(unsafe.Pointer(&a[0])), 0x5a, uintptr(len(a)))
	assert.Equal(t, uintptr(unsafe.Pointer(&a[0])), r, "memset returns its destination")
	for i, c := range a {
		require.Equal(t, byte(0x5a), c, "a[%d]", i)
	}
	dl.Call3(memcpy, uintptr(unsafe.Pointer(&b[8])), uintptr(unsafe.Pointer(&a[0])), 16)
	for i, c := range b {
		want := byte(0)
		if i >= 8 && i < 24 {
			want = 0x5a
		}
		require.Equal(t, want, c, "b[%d]", i)
	}

	var dst int64
	src := int64(-123456789012)
	dl.Call3(memcpy, uintptr(unsafe.Pointer(&dst)), uintptr(unsafe.Pointer(&src)), unsafe.Sizeof(src))
	assert.Equal(t, src, dst)

	f := cbytes(t, "%s=%d")
	name := [...]byte{'a', 'b', 'c', 0}
	var out [32]byte
	r = dl.Call5(snprintf, uintptr(unsafe.Pointer(&out[0])), uintptr(len(out)), uintptr(unsafe.Pointer(&f[0])),
		uintptr(unsafe.Pointer(&name[0])), garbage(-7))
	runtime.KeepAlive(f)
	assert.Equal(t, "abc=-7", cstr.FromBytes(out[:]))
	assert.Equal(t, uintptr(6), r)
}

// Return values: integers (all 64 bits of a long), sizes and pointers.
func TestCallReturnValues(t *testing.T) {
	h := libc(t)
	labs, strlen, memchr := sym(t, h, "labs"), sym(t, h, "strlen"), sym(t, h, "memchr")
	assert.Equal(t, uintptr(1)<<40, dl.Call1(labs, ^uintptr(1<<40-1)))
	assert.Equal(t, uintptr(0), dl.Call1(labs, 0))

	s := [...]byte{'h', 'e', 'l', 'l', 'o', ',', ' ', 'w', 'o', 'r', 'l', 'd', 0}
	assert.Equal(t, uintptr(12), dl.Call1(strlen, uintptr(unsafe.Pointer(&s[0]))))
	p := dl.Call3(memchr, uintptr(unsafe.Pointer(&s[0])), ',', uintptr(len(s)))
	assert.Equal(t, uintptr(unsafe.Pointer(&s[5])), p)
	assert.Zero(t, dl.Call3(memchr, uintptr(unsafe.Pointer(&s[0])), 'z', uintptr(len(s))))

	strncmp := sym(t, h, "strncmp")
	x, y := [...]byte{'a', 'b', 'c', 'X', 0}, [...]byte{'a', 'b', 'c', 'Y', 0}
	assert.Zero(t, int32(dl.Call3(strncmp, uintptr(unsafe.Pointer(&x[0])), uintptr(unsafe.Pointer(&y[0])), 3)))
	assert.Less(t, int32(dl.Call3(strncmp, uintptr(unsafe.Pointer(&x[0])), uintptr(unsafe.Pointer(&y[0])), 4)), int32(0))
}

// A NULL function pointer panics instead of crashing the process in C.
func TestCallNilFunction(t *testing.T) {
	libc(t)
	assert.Panics(t, func() { dl.Call0(0) })
	assert.Panics(t, func() { dl.Call3(0, 1, 2, 3) })
	assert.Panics(t, func() { dl.Call14(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14) })
	assert.Panics(t, func() { dl.LeanCall1(0, 1) })
}

var (
	// absCalls counts the comparator's calls; labs is what it compares with.
	absCalls atomic.Int64
	labsFn   atomic.Uintptr

	// byAbs compares two int64s by absolute value, each through dl.Call1
	// (labs): a call into C from a Go callback from inside a call into C.
	byAbs = sync.OnceValue(func() uintptr {
		return purego.NewCallback(func(a, b unsafe.Pointer) int32 {
			absCalls.Add(1)
			x := int64(dl.Call1(labsFn.Load(), uintptr(*(*int64)(a))))
			y := int64(dl.Call1(labsFn.Load(), uintptr(*(*int64)(b))))
			switch {
			case x < y:
				return -1
			case x > y:
				return 1
			}
			return 0
		})
	})
)

// onHeap returns a slice whose backing array is on the heap (it escapes).
//
//go:noinline
func onHeap(n int) []int64 { return make([]int64, n) }

// libc's qsort calls a Go comparator (a purego callback) from inside a
// call: Go code runs on the calling goroutine while it is in C, and makes
// calls into C of its own.
func TestCallbackFromInsideCall(t *testing.T) {
	h := libc(t)
	labsFn.Store(sym(t, h, "labs"))
	qsort := sym(t, h, "qsort")
	cmp := byAbs()

	// C holds xs while Go code runs, which may move the goroutine stack: xs
	// must be on the heap (a make of constant size that does not escape is
	// on the stack, and qsort would sort the old copy).
	xs := onHeap(500)
	for i := range xs {
		xs[i] = rand.Int64N(2000) - 1000
	}
	before := absCalls.Load()
	dl.Call4(qsort, uintptr(unsafe.Pointer(&xs[0])), uintptr(len(xs)), 8, cmp)
	runtime.KeepAlive(xs)
	assert.Greater(t, absCalls.Load()-before, int64(len(xs)), "the comparator ran")
	assert.True(t, slices.IsSortedFunc(xs, func(a, b int64) int {
		return int(max(a, -a) - max(b, -b))
	}), "sorted by absolute value: %v", xs)
}

//go:noinline
func deep(n int) byte {
	var pad [512]byte
	pad[n%len(pad)] = byte(n)
	if n == 0 {
		return pad[0]
	}
	return deep(n-1) + pad[(n*7)%len(pad)]
}

// A callback that grows (and so moves) the calling goroutine's stack while
// the call is in C: the result still lands in the call's frame where it is
// now. bsearch returns a pointer, found by a comparator whose first call
// recurses a megabyte deep.
func TestCallbackMovesStack(t *testing.T) {
	h := libc(t)
	bsearch := sym(t, h, "bsearch")
	var grow atomic.Bool
	cmp := purego.NewCallback(func(k, e unsafe.Pointer) int32 {
		if grow.Swap(false) {
			deep(2000)
		}
		return int32(*(*int64)(k) - *(*int64)(e))
	})
	keys := onHeap(100)
	for i := range keys {
		keys[i] = int64(i * 3)
	}
	key := &onHeap(1)[0]
	*key = keys[37]

	type result struct{ r, before, after uintptr }
	done := make(chan result)
	for range 3 {
		grow.Store(true)
		go func() {
			var marker [16]byte // on this goroutine's small, new stack
			before := uintptr(unsafe.Pointer(&marker[0]))
			r := dl.Call5(bsearch, uintptr(unsafe.Pointer(key)), uintptr(unsafe.Pointer(&keys[0])),
				uintptr(len(keys)), 8, cmp)
			done <- result{r, before, uintptr(unsafe.Pointer(&marker[0]))}
		}()
		res := <-done
		assert.NotEqual(t, res.before, res.after, "the callback moved the stack")
		assert.Equal(t, uintptr(unsafe.Pointer(&keys[37])), res.r)
	}
	runtime.KeepAlive(keys)
	runtime.KeepAlive(key)
}

// The hazard the rule above is about: an address of Go stack memory given to
// a call whose Go callback moves the stack. C then uses freed memory (here
// bsearch only reads the key through it); the call panics, naming the
// argument.
func TestCallbackMovesStackPanicsOnStackArgument(t *testing.T) {
	if !dl.Trampolines {
		t.Skip("built with -tags nocgo_syscalln: stack arguments move to the heap")
	}
	h := libc(t)
	bsearch := sym(t, h, "bsearch")
	var grow atomic.Bool
	cmp := purego.NewCallback(func(k, e unsafe.Pointer) int32 {
		if grow.Swap(false) {
			deep(2000)
		}
		return -1 // never found; the key is not read after the first call
	})
	keys := onHeap(8)
	done := make(chan any)
	grow.Store(true)
	go func() {
		defer func() { done <- recover() }()
		key := int64(5) // on this goroutine's stack: wrong for this call
		dl.Call5(bsearch, uintptr(unsafe.Pointer(&key)), uintptr(unsafe.Pointer(&keys[0])),
			uintptr(len(keys)), 8, cmp)
	}()
	p := <-done
	runtime.KeepAlive(keys)
	require.NotNil(t, p, "the call panics")
	assert.Contains(t, fmt.Sprint(p), "argument 1")
	assert.Contains(t, fmt.Sprint(p), "address of Go stack memory")
}

// Many goroutines call at once, with the garbage collector running and
// stacks growing between calls; each writes into its own stack buffer.
func TestCallConcurrent(t *testing.T) {
	snprintf := sym(t, libc(t), "snprintf")
	f := cbytes(t, "%d:%d:%lx")
	stop := make(chan struct{})
	var gcs sync.WaitGroup
	gcs.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
				runtime.GC()
			}
		}
	})
	var wg sync.WaitGroup
	for g := range 64 {
		wg.Go(func() {
			for i := range 300 {
				if i%17 == 0 {
					deep(i % 200)
				}
				var buf [64]byte
				wide := uintptr(g)<<40 | uintptr(i)
				r := dl.Call6(snprintf, uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)), uintptr(unsafe.Pointer(&f[0])),
					garbage(int32(g)), garbage(int32(-i)), wide)
				want := fmt.Sprintf("%d:%d:%x", g, -i, wide)
				if got := cstr.FromBytes(buf[:]); got != want || r != uintptr(len(want)) {
					t.Errorf("goroutine %d call %d: %q (%d), want %q", g, i, got, r, want)
					return
				}
			}
		})
	}
	wg.Wait()
	close(stop)
	gcs.Wait()
	runtime.KeepAlive(f)
}

// The lean calls give the same results (under -race and with
// -tags nocgo_syscalln they are the CallN functions).
func TestLeanCall(t *testing.T) {
	h := libc(t)
	t.Logf("lean path built: %v", dl.Lean)
	assert.Equal(t, uintptr(os.Getpid()), dl.LeanCall0(sym(t, h, "getpid")))
	assert.Equal(t, uintptr(1)<<40, dl.LeanCall1(sym(t, h, "labs"), ^uintptr(1<<40-1)))
	s := [...]byte{'a', 'b', 'c', 'd', 0}
	assert.Equal(t, uintptr(2), dl.LeanCall2(sym(t, h, "strnlen"), uintptr(unsafe.Pointer(&s[0])), 2))
	var a [16]byte
	dl.LeanCall3(sym(t, h, "memset"), uintptr(unsafe.Pointer(&a[0])), 7, uintptr(len(a)))
	assert.Equal(t, [16]byte{7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7}, a)
}

// A call allocates nothing, an out-parameter on the goroutine stack
// included (with -tags nocgo_syscalln such a parameter moves to the heap).
func TestCallDoesNotAllocate(t *testing.T) {
	h := libc(t)
	labs, memcpy, snprintf := sym(t, h, "labs"), sym(t, h, "memcpy"), sym(t, h, "snprintf")
	heap := new(int64)
	allocs := testing.AllocsPerRun(1000, func() {
		if dl.Call3(labs, ^uintptr(6), 0, uintptr(unsafe.Pointer(heap))) != 7 {
			t.Fatal("labs(-7) != 7")
		}
	})
	assert.Zero(t, allocs, "integer and heap-pointer arguments")
	if !dl.Trampolines {
		t.Skip("built with -tags nocgo_syscalln: out-parameters on the stack move to the heap")
	}

	stack := testing.AllocsPerRun(1000, func() {
		var dst int64
		src := int64(42)
		dl.Call3(memcpy, uintptr(unsafe.Pointer(&dst)), uintptr(unsafe.Pointer(&src)), 8)
		if dst != 42 {
			t.Fatal("memcpy did not copy")
		}
	})
	assert.Zero(t, stack, "stack out-parameter")

	f := cbytes(t, "%d%d%d%d%d%d%d%d%d%d%d")
	wide := testing.AllocsPerRun(1000, func() {
		var buf [32]byte
		r := dl.Call14(snprintf, uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)), uintptr(unsafe.Pointer(&f[0])),
			1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1)
		if r != 11 || buf[10] != '1' {
			t.Fatal("snprintf")
		}
	})
	runtime.KeepAlive(f)
	assert.Zero(t, wide, "Call14 into a stack buffer")

	lean := testing.AllocsPerRun(1000, func() {
		var dst int64
		src := int64(42)
		dl.LeanCall3(memcpy, uintptr(unsafe.Pointer(&dst)), uintptr(unsafe.Pointer(&src)), 8)
		if dst != 42 {
			t.Fatal("memcpy did not copy")
		}
	})
	assert.Zero(t, lean, "LeanCall3 with a stack out-parameter")
}

// BenchmarkCall: labs(-7) through this package and through purego.SyscallN;
// then an 8-byte memcpy into a stack variable (an out-parameter).
func BenchmarkCall(b *testing.B) {
	h := libc(b)
	labs, memcpy := sym(b, h, "labs"), sym(b, h, "memcpy")
	b.Run("labs/dl.Call1", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			dl.Call1(labs, ^uintptr(6))
		}
	})
	b.Run("labs/dl.LeanCall1", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			dl.LeanCall1(labs, ^uintptr(6))
		}
	})
	b.Run("labs/purego.SyscallN", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			purego.SyscallN(labs, ^uintptr(6))
		}
	})
	src := int64(42)
	b.Run("outparam/dl.Call3", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var dst int64
			dl.Call3(memcpy, uintptr(unsafe.Pointer(&dst)), uintptr(unsafe.Pointer(&src)), 8)
		}
	})
	b.Run("outparam/dl.LeanCall3", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var dst int64
			dl.LeanCall3(memcpy, uintptr(unsafe.Pointer(&dst)), uintptr(unsafe.Pointer(&src)), 8)
		}
	})
	b.Run("outparam/purego.SyscallN", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var dst int64
			purego.SyscallN(memcpy, uintptr(unsafe.Pointer(&dst)), uintptr(unsafe.Pointer(&src)), 8)
		}
	})
}

// BenchmarkCall14: the widest arity, six (amd64) or eight (arm64) arguments
// on the C stack.
func BenchmarkCall14(b *testing.B) {
	labs := sym(b, libc(b), "labs")
	b.ReportAllocs()
	for b.Loop() {
		dl.Call14(labs, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14)
	}
}
