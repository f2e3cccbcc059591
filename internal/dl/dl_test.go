//go:build linux && (amd64 || arm64)

package dl_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/internal/cstr"
	"github.com/nocgo/cuda/internal/dl"
)

func libc(t testing.TB) uintptr {
	t.Helper()
	if !dl.Supported {
		t.Skip("run-time loading is not built for this platform")
	}
	h, err := dl.Open("libc.so.6")
	require.NoError(t, err)
	return h
}

func sym(t testing.TB, h uintptr, name string) uintptr {
	t.Helper()
	p, err := dl.Sym(h, name)
	require.NoError(t, err)
	return p
}

func TestOpenAndPath(t *testing.T) {
	h := libc(t)
	path, ok := dl.Path(h)
	require.True(t, ok)
	assert.True(t, filepath.IsAbs(path), path)
	assert.True(t, strings.HasPrefix(filepath.Base(path), "libc"), path)
}

func TestOpenErrors(t *testing.T) {
	if !dl.Supported {
		t.Skip("run-time loading is not built for this platform")
	}
	_, err := dl.Open("")
	assert.ErrorIs(t, err, dl.ErrEmptyName)
	_, err = dl.Open("libc.so.6\x00x")
	assert.ErrorIs(t, err, cstr.ErrNUL)
	_, err = dl.Open("libnocgo-missing.so.3")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "libnocgo-missing.so.3")
}

func TestSymErrors(t *testing.T) {
	h := libc(t)
	_, err := dl.Sym(h, "cuNoSuchSymbol")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "cuNoSuchSymbol")
	_, err = dl.Sym(h, "")
	assert.ErrorIs(t, err, dl.ErrEmptyName)
}

// The CallN functions pass every argument in its slot: snprintf is variadic
// and reads integers from registers and then from the stack, in order.
func TestCallArguments(t *testing.T) {
	snprintf := sym(t, libc(t), "snprintf")
	var buf [256]byte
	format := func(n int) []byte {
		f, err := cstr.Bytes(strings.TrimSpace(strings.Repeat("%ld ", n)))
		require.NoError(t, err)
		return f
	}
	want := func(n int) string {
		var parts []string
		for i := 1; i <= n; i++ {
			parts = append(parts, fmt.Sprint(i*1000+i))
		}
		return strings.Join(parts, " ")
	}
	got := func(r uintptr) string {
		s := cstr.FromBytes(buf[:])
		assert.Equal(t, uintptr(len(s)), r, "snprintf returns the length")
		return s
	}
	f3 := format(3)
	r := dl.Call6(snprintf, uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)), uintptr(unsafe.Pointer(&f3[0])), 1001, 2002, 3003)
	assert.Equal(t, want(3), got(r))

	f8 := format(8)
	r = dl.Call11(snprintf, uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)), uintptr(unsafe.Pointer(&f8[0])),
		1001, 2002, 3003, 4004, 5005, 6006, 7007, 8008)
	assert.Equal(t, want(8), got(r))

	f11 := format(11)
	r = dl.Call14(snprintf, uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)), uintptr(unsafe.Pointer(&f11[0])),
		1001, 2002, 3003, 4004, 5005, 6006, 7007, 8008, 9009, 10010, 11011)
	assert.Equal(t, want(11), got(r))
}

func TestCallSmallArities(t *testing.T) {
	h := libc(t)
	assert.Equal(t, uintptr(os.Getpid()), dl.Call0(sym(t, h, "getpid")))
	assert.Equal(t, uintptr(42), dl.Call1(sym(t, h, "labs"), ^uintptr(41))) // labs(-42)

	s := []byte("hello, world\x00")
	assert.Equal(t, uintptr(12), dl.Call1(sym(t, h, "strlen"), uintptr(unsafe.Pointer(&s[0]))))
	memchr := sym(t, h, "memchr")
	p := dl.Call3(memchr, uintptr(unsafe.Pointer(&s[0])), ',', uintptr(len(s)))
	assert.Equal(t, uintptr(unsafe.Pointer(&s[5])), p)

	dst := make([]byte, 5)
	dl.Call3(sym(t, h, "memcpy"), uintptr(unsafe.Pointer(&dst[0])), uintptr(unsafe.Pointer(&s[0])), 5)
	assert.Equal(t, "hello", string(dst))

	strncmp := sym(t, h, "strncmp")
	a, b := []byte("abcX\x00"), []byte("abcY\x00")
	assert.Zero(t, int32(dl.Call3(strncmp, uintptr(unsafe.Pointer(&a[0])), uintptr(unsafe.Pointer(&b[0])), 3)))
	assert.Less(t, int32(dl.Call3(strncmp, uintptr(unsafe.Pointer(&a[0])), uintptr(unsafe.Pointer(&b[0])), 4)), int32(0))

	var out [32]byte
	snprintf := sym(t, h, "snprintf")
	f := []byte("%ld-%ld\x00")
	dl.Call5(snprintf, uintptr(unsafe.Pointer(&out[0])), uintptr(len(out)), uintptr(unsafe.Pointer(&f[0])), 7, 9)
	assert.Equal(t, "7-9", cstr.FromBytes(out[:]))
	f4 := []byte("%ld\x00")
	dl.Call4(snprintf, uintptr(unsafe.Pointer(&out[0])), uintptr(len(out)), uintptr(unsafe.Pointer(&f4[0])), 5)
	assert.Equal(t, "5", cstr.FromBytes(out[:]))
	dl.Call2(sym(t, h, "strcpy"), uintptr(unsafe.Pointer(&out[0])), uintptr(unsafe.Pointer(&a[0])))
	assert.Equal(t, "abcX", cstr.FromBytes(out[:]))
}

// A call with arguments allocates nothing (purego.SyscallN alone allocates
// its variadic slice).
func TestCallDoesNotAllocate(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool drop items, which allocates")
	}
	labs := sym(t, libc(t), "labs")
	heap := new(int64)
	allocs := testing.AllocsPerRun(1000, func() {
		if dl.Call3(labs, ^uintptr(6), 0, uintptr(unsafe.Pointer(heap))) != 7 {
			t.Fatal("labs(-7) != 7")
		}
	})
	assert.Zero(t, allocs)
}

func BenchmarkCall3(b *testing.B) {
	labs := sym(b, libc(b), "labs")
	b.ReportAllocs()
	for b.Loop() {
		dl.Call3(labs, 1, 2, 3)
	}
}
