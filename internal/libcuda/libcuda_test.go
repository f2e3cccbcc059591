//go:build linux && (amd64 || arm64)

package libcuda

import (
	"encoding/binary"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/nocgo/cuda/driver/backend"

	"github.com/ebitengine/purego"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/internal/callback"
	"github.com/nocgo/cuda/internal/cstr"
	"github.com/nocgo/cuda/internal/dl"
	"github.com/nocgo/cuda/internal/symtab"
	"github.com/nocgo/cuda/loader"
)

// testLibcuda builds the real backend over libc, opened through the
// loader: the entry points named in impl resolve to the given libc
// functions; every other one goes through the backend's own resolution
// (dlsym of the versioned names, as on a driver without cuGetProcAddress)
// and is missing.
func testLibcuda(t testing.TB, version int, impl map[sym]string) *libcuda {
	t.Helper()
	t.Setenv("NOCGO_CUDA_LIBCUDA", "libc.so.6")
	lib, err := loader.Open(loader.CUDA)
	require.NoError(t, err)
	l := &libcuda{lib: lib, version: version}
	l.syms = symtab.New(int(numSyms), func(i int) (uintptr, error) {
		if name, ok := impl[sym(i)]; ok {
			return lib.Symbol(name)
		}
		return l.resolve(sym(i))
	})
	return l
}

func TestMissingEntryPointIsASymbolError(t *testing.T) {
	l := testLibcuda(t, 12020, nil)

	_, _, err := l.FuncGetParamInfo(0x1234, 0)
	var serr *loader.SymbolError
	require.ErrorAs(t, err, &serr)
	assert.Equal(t, "cuFuncGetParamInfo", serr.Symbol)
	assert.Equal(t, 12040, serr.Since)
	assert.Equal(t, 12020, serr.Have)
	assert.Contains(t, err.Error(), "cuFuncGetParamInfo (CUDA 12.4 and newer) not found")
	assert.Contains(t, err.Error(), "(supports CUDA 12.2)")

	// Every method reports, never panics, and the others still work.
	assert.Error(t, l.StreamQuery(1))
	_, err = l.CtxGetCurrent()
	assert.ErrorAs(t, err, &serr)
	assert.Equal(t, "cuCtxGetCurrent", serr.Symbol)
}

// Without cuGetProcAddress, entry points are found by their explicit
// versioned names: never the legacy unversioned symbol when a versioned one
// exists.
func TestDlsymFallbackUsesVersionedNames(t *testing.T) {
	l := testLibcuda(t, 11000, nil)
	tries := func(err error) []string {
		var out []string
		for _, line := range strings.Split(err.Error(), "\n") {
			if i := strings.LastIndex(line, "undefined symbol: "); i >= 0 {
				out = append(out, line[i+len("undefined symbol: "):])
			}
		}
		return out
	}
	_, err := l.MemAlloc(16)
	assert.Equal(t, []string{"cuMemAlloc_v2"}, tries(err))
	_, err = l.CtxCreate(0, 0)
	assert.Equal(t, []string{"cuCtxCreate_v2"}, tries(err))
	_, err = l.DeviceGetUUID(0)
	assert.Equal(t, []string{"cuDeviceGetUuid_v2", "cuDeviceGetUuid"}, tries(err))
	assert.Equal(t, []string{"cuStreamQuery"}, tries(l.StreamQuery(0)))
	assert.Equal(t, []string{"cuMemsetD8_v2"}, tries(l.MemsetD8(0, 0, 0)))
	assert.Equal(t, []string{"cuMemcpyDtoHAsync_v2"}, tries(l.MemcpyDtoHAsync(nil, 0, 0, 0)))
}

func TestSymbolTable(t *testing.T) {
	seen := map[string]bool{}
	for s := sym(0); s < numSyms; s++ {
		info := syms[s]
		require.NotEmpty(t, info.name, "sym %d has no entry", s)
		assert.False(t, seen[info.name], "%s listed twice", info.name)
		seen[info.name] = true
		assert.True(t, strings.HasPrefix(info.name, "cu"), info.name)
		assert.NotContains(t, info.name, "_v", "%s: cuGetProcAddress takes base names", info.name)
		assert.Positive(t, info.since, info.name)
		// The version requested from a current driver has the entry point.
		assert.GreaterOrEqual(t, s.requestVersion(13000), info.since, info.name)
		for _, d := range info.dlsym {
			assert.True(t, strings.HasPrefix(d, info.name), "%s: fallback %s", info.name, d)
		}
	}
}

func TestRequestVersion(t *testing.T) {
	cases := []struct {
		s         sym
		drv, want int
	}{
		{symMemAlloc, 13000, 13000},
		{symMemAlloc, 12020, 12020},
		{symMemAlloc, 14000, abiVersion}, // a newer driver is asked for the ABI this code calls
		{symCtxCreate, 13000, 11000},     // _v2, not _v3 (11.4) or _v4 (12.5)
		{symCtxCreate, 10020, 10020},
		{symStreamGetCtx, 13000, 12000},   // not _v2 (12.5, green context)
		{symCtxGetDevice, 13000, 12000},   // not _v2 (13.0, explicit context)
		{symCtxSynchronize, 13000, 12000}, // not _v2 (13.0, explicit context)
		{symFuncGetParamInfo, 13000, 13000},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, c.s.requestVersion(c.drv), "%s on %d", syms[c.s].name, c.drv)
	}
}

// fakeGetProc is a cuGetProcAddress(_v2) made with purego.NewCallback:
// it records each request and answers with a libc function, or with
// "not found" for names it does not know.
type fakeGetProc struct {
	mu       sync.Mutex
	requests map[string]int32
	answers  map[string]uintptr
	status   int32 // status for unknown names (SYMBOL_NOT_FOUND or VERSION_NOT_SUFFICIENT)
}

var (
	fakeGetProcOnce sync.Once
	fakeGetProcV2   uintptr
	fakeGetProcV1   uintptr
	currentFake     *fakeGetProc
	currentFakeMu   sync.Mutex
)

func (f *fakeGetProc) lookup(symbol unsafe.Pointer, pfn *uintptr, ver int32, status *int32) uintptr {
	name := cstr.GoString(symbol)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests[name] = ver
	if p, ok := f.answers[name]; ok {
		*pfn = p
		if status != nil {
			*status = procAddressSuccess
		}
		return 0
	}
	*pfn = 0
	if status != nil {
		*status = f.status
	}
	return uintptr(backend.ErrNotFound)
}

// installFake builds the backend over libc with a fake cuGetProcAddress.
func installFake(t *testing.T, v2 bool, driverVersion int, answers map[string]string) (*libcuda, *fakeGetProc) {
	fakeGetProcOnce.Do(func() {
		fakeGetProcV2 = purego.NewCallback(func(symbol unsafe.Pointer, pfn *uintptr, ver int32, flags uint64, status *int32) uintptr {
			currentFakeMu.Lock()
			f := currentFake
			currentFakeMu.Unlock()
			return f.lookup(symbol, pfn, ver, status)
		})
		fakeGetProcV1 = purego.NewCallback(func(symbol unsafe.Pointer, pfn *uintptr, ver int32, flags uint64) uintptr {
			currentFakeMu.Lock()
			f := currentFake
			currentFakeMu.Unlock()
			return f.lookup(symbol, pfn, ver, nil)
		})
	})
	l := testLibcuda(t, driverVersion, nil)
	f := &fakeGetProc{requests: map[string]int32{}, answers: map[string]uintptr{}, status: procAddressSymbolNotFound}
	for cu, libc := range answers {
		p, err := l.lib.Symbol(libc)
		require.NoError(t, err)
		f.answers[cu] = p
	}
	currentFakeMu.Lock()
	currentFake = f
	currentFakeMu.Unlock()
	l.getProc, l.getProcV2 = fakeGetProcV1, false
	if v2 {
		l.getProc, l.getProcV2 = fakeGetProcV2, true
	}
	return l, f
}

func TestGetProcAddressRequests(t *testing.T) {
	l, f := installFake(t, true, 13000, map[string]string{"cuStreamQuery": "labs", "cuCtxCreate": "labs", "cuStreamGetCtx": "labs"})

	require.NoError(t, l.StreamQuery(0))
	assert.ErrorIs(t, l.StreamQuery(600), backend.ErrNotReady)
	_, err := l.CtxCreate(0, 0) // labs(&ctx) is not 0: some error, but resolved
	assert.Error(t, err)
	l.StreamGetCtx(0)

	assert.Equal(t, map[string]int32{"cuStreamQuery": 13000, "cuCtxCreate": 11000, "cuStreamGetCtx": 12000}, f.requests)

	_, _, err = l.FuncGetParamInfo(1, 0)
	var serr *loader.SymbolError
	require.ErrorAs(t, err, &serr)
	assert.Equal(t, "cuFuncGetParamInfo", serr.Symbol)
	assert.Contains(t, err.Error(), `cuGetProcAddress("cuFuncGetParamInfo", 13000): symbol not found`)
	assert.Equal(t, int32(13000), f.requests["cuFuncGetParamInfo"])

	f.status = procAddressVersionNotSuffice
	err = l.EventQuery(1)
	assert.Contains(t, err.Error(), "only at a newer version")

	// The entry points needed before cuInit succeeds are found with dlsym,
	// never through cuGetProcAddress.
	err = l.Init(0)
	require.ErrorAs(t, err, &serr)
	assert.Contains(t, err.Error(), "undefined symbol: cuInit")
	assert.NotContains(t, f.requests, "cuInit")
	assert.NotContains(t, f.requests, "cuGetErrorName")

	// A symbol is requested once, however often it is called.
	delete(f.requests, "cuStreamQuery")
	require.NoError(t, l.StreamQuery(0))
	assert.NotContains(t, f.requests, "cuStreamQuery")
}

func TestGetProcAddressV1(t *testing.T) {
	l, f := installFake(t, false, 12020, map[string]string{"cuEventQuery": "labs"})
	assert.ErrorIs(t, l.EventQuery(600), backend.ErrNotReady)
	assert.Equal(t, int32(12020), f.requests["cuEventQuery"])
	err := l.EventSynchronize(1)
	var serr *loader.SymbolError
	require.ErrorAs(t, err, &serr)
	assert.ErrorIs(t, err, backend.ErrNotFound, "cuGetProcAddress's own result is kept")
}

// A CUresult is 32 bits; whatever the callee leaves in the upper half of
// the return register is not part of it.
func TestResultIsTheLow32Bits(t *testing.T) {
	l := testLibcuda(t, 13000, map[sym]string{symStreamQuery: "labs"})
	assert.ErrorIs(t, l.StreamQuery(1<<32|600), backend.ErrNotReady)
	assert.NoError(t, l.StreamQuery(1<<32))
}

// Out parameters are read from where the callee wrote them:
// clock_gettime(CLOCK_REALTIME, &ts) stands in for cuStreamGetCtx(s, &ctx)
// and writes the seconds into the first 8 bytes.
func TestOutParameters(t *testing.T) {
	l := testLibcuda(t, 13000, map[sym]string{
		symStreamGetCtx:  "clock_gettime",
		symCtxGetCurrent: "time", // time(&t) returns and stores the seconds
	})
	now := time.Now().Unix()
	sec, err := l.StreamGetCtx(0) // CLOCK_REALTIME is 0
	require.NoError(t, err)
	assert.InDelta(t, now, int64(sec), 5)

	c, err := l.CtxGetCurrent()
	// time returns the seconds, which as a CUresult is an error code; the
	// value was still written where CtxGetCurrent reads it.
	assert.Error(t, err)
	assert.InDelta(t, now, int64(c), 5)
}

// The hot paths allocate nothing: the entry points are replaced by labs,
// which returns its first argument's absolute value, so a 0 handle means
// success.
func TestHotPathsDoNotAllocate(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool drop items, which allocates")
	}
	if !dl.Trampolines {
		t.Skip("built with -tags nocgo_syscalln: out-parameters move to the heap")
	}
	impl := map[sym]string{}
	for _, s := range []sym{symStreamQuery, symStreamSynchronize, symStreamWaitEvent, symEventRecord, symEventQuery,
		symLaunchKernel, symMemcpyHtoDAsync, symMemcpyDtoDAsync, symMemsetD8Async,
		symMemsetD16Async, symMemsetD32Async, symCtxPushCurrent, symMemcpyPeerAsync} {
		impl[s] = "labs"
	}
	// pthread_mutexattr_init(attr): writes at most 8 bytes (the size of the
	// CUcontext out parameter) and returns 0.
	impl[symCtxGetCurrent] = "pthread_mutexattr_init"
	impl[symCtxPopCurrent] = "pthread_mutexattr_init"
	impl[symMemcpyDtoHAsync] = "gettimeofday" // (struct timeval *tv = host, src 0 = NULL timezone): writes 16 bytes, returns 0
	l := testLibcuda(t, 13000, impl)
	host := make([]byte, 64)
	params := unsafe.Pointer(&[2]unsafe.Pointer{unsafe.Pointer(&host[0]), unsafe.Pointer(&host[8])})
	grid, block := [3]uint32{1, 1, 1}, [3]uint32{256, 1, 1}
	calls := map[string]func() error{
		"StreamQuery":       func() error { return l.StreamQuery(0) },
		"StreamQuery busy":  func() error { return ignore(l.StreamQuery(600), backend.ErrNotReady) },
		"StreamSynchronize": func() error { return l.StreamSynchronize(0) },
		"StreamWaitEvent":   func() error { return l.StreamWaitEvent(0, 7, 0) },
		"EventRecord":       func() error { return l.EventRecord(0, 9) },
		"EventQuery":        func() error { return ignore(l.EventQuery(600), backend.ErrNotReady) },
		"LaunchKernel":      func() error { return l.LaunchKernel(0, grid, block, 0, 5, params) },
		"MemcpyHtoDAsync":   func() error { return l.MemcpyHtoDAsync(0, unsafe.Pointer(&host[0]), 64, 5) },
		"MemcpyDtoHAsync":   func() error { return l.MemcpyDtoHAsync(unsafe.Pointer(&host[0]), 0, 64, 5) },
		"MemcpyDtoDAsync":   func() error { return l.MemcpyDtoDAsync(0, 1, 64, 5) },
		"MemcpyPeerAsync":   func() error { return l.MemcpyPeerAsync(0, 1, 2, 3, 64, 5) },
		"MemsetD8Async":     func() error { return l.MemsetD8Async(0, 1, 64, 5) },
		"MemsetD16Async":    func() error { return l.MemsetD16Async(0, 1, 32, 5) },
		"MemsetD32Async":    func() error { return l.MemsetD32Async(0, 1, 16, 5) },
		"CtxPushCurrent":    func() error { return l.CtxPushCurrent(0) },
		"CtxGetCurrent":     func() error { _, err := l.CtxGetCurrent(); return err },
		"CtxPopCurrent":     func() error { _, err := l.CtxPopCurrent(); return err },
	}
	for name, call := range calls {
		require.NoError(t, call(), name)
		assert.Zero(t, testing.AllocsPerRun(200, func() { _ = call() }), name)
	}
}

// ignore turns the expected error want into nil.
func ignore(err, want error) error {
	if errors.Is(err, want) {
		return nil
	}
	return err
}

func TestLaunchHostFuncRefusedIsUnregistered(t *testing.T) {
	l := testLibcuda(t, 13000, map[sym]string{symLaunchHostFunc: "labs"})
	base := callback.Pending()
	ran := false
	err := l.LaunchHostFunc(400, func() { ran = true })
	assert.ErrorIs(t, err, backend.ErrInvalidHandle)
	assert.Equal(t, base, callback.Pending(), "a refused launch leaves nothing registered")
	assert.False(t, ran)

	assert.ErrorIs(t, l.LaunchHostFunc(0, nil), backend.ErrInvalidValue)
}

func TestModuleImage(t *testing.T) {
	ptx := []byte(".version 8.0\n.target sm_90\n")
	img, err := moduleImage(ptx)
	require.NoError(t, err)
	assert.Equal(t, append(append([]byte{}, ptx...), 0), img)
	assert.Equal(t, ".version 8.0\n.target sm_90\n", string(ptx), "the caller's slice is not changed")

	terminated := []byte(".version 8.0\x00")
	img, err = moduleImage(terminated)
	require.NoError(t, err)
	assert.Same(t, &terminated[0], &img[0], "NUL-terminated text is passed as is")

	// A CUBIN is passed as is once its tables are inside the slice: the
	// driver takes no length and would read past a truncated image.
	cubin := minimalELF(0)
	img, err = moduleImage(cubin)
	require.NoError(t, err)
	assert.Same(t, &cubin[0], &img[0])
	_, err = moduleImage(minimalELF(1 << 20))
	assert.ErrorIs(t, err, backend.ErrInvalidImage, "section table past the end")
	_, err = moduleImage(cubin[:20])
	assert.ErrorIs(t, err, backend.ErrInvalidImage, "truncated header")
	_, err = moduleImage([]byte("\x7fELF\x02\x01\x01rest"))
	assert.ErrorIs(t, err, backend.ErrInvalidImage)

	fatbin := craftFatbin(0, fatbinEntry{kind: 1, payload: []byte{1, 2, 3, 4}}) // see TestModuleImageFatbin
	img, err = moduleImage(fatbin)
	require.NoError(t, err)
	assert.Same(t, &fatbin[0], &img[0])
	_, err = moduleImage(fatbin[:18])
	assert.ErrorIs(t, err, backend.ErrInvalidImage, "fatbin body past the end")
	_, err = moduleImage(fatbin[:8])
	assert.ErrorIs(t, err, backend.ErrInvalidImage, "truncated fatbin header")

	l := testLibcuda(t, 13000, nil)
	_, err = l.ModuleLoadData(nil)
	assert.ErrorIs(t, err, backend.ErrInvalidValue)
	_, err = l.ModuleGetFunction(1, "bad\x00name")
	assert.ErrorIs(t, err, backend.ErrInvalidValue)
}

func TestIntArgumentsOutOfRange(t *testing.T) {
	l := testLibcuda(t, 13000, nil)
	_, err := l.DeviceGet(1 << 40)
	assert.ErrorIs(t, err, backend.ErrInvalidDevice)
	_, err = l.StreamCreateWithPriority(0, 1<<33)
	assert.ErrorIs(t, err, backend.ErrInvalidValue)
	_, _, err = l.FuncGetParamInfo(1, -1)
	assert.ErrorIs(t, err, backend.ErrInvalidValue)
	assert.ErrorIs(t, l.FuncSetAttribute(1, backend.FuncMaxDynamicSharedSize, 1<<35), backend.ErrInvalidValue)
	_, _, err = l.OccupancyMaxPotentialBlockSize(1, 0, -1<<40)
	assert.ErrorIs(t, err, backend.ErrInvalidValue)
}

// minimalELF is an ELF64 header for a CUDA image with no sections, whose
// section table is said to start at shoff (0: none).
func minimalELF(shoff uint64) []byte {
	h := make([]byte, 64)
	copy(h, []byte{0x7f, 'E', 'L', 'F', 2, 1, 1, 0x33})
	binary.LittleEndian.PutUint16(h[16:], 2)   // ET_EXEC
	binary.LittleEndian.PutUint16(h[18:], 190) // EM_CUDA
	binary.LittleEndian.PutUint32(h[20:], 1)
	binary.LittleEndian.PutUint64(h[40:], shoff)
	binary.LittleEndian.PutUint16(h[52:], 64) // e_ehsize
	binary.LittleEndian.PutUint16(h[54:], 56) // e_phentsize
	binary.LittleEndian.PutUint16(h[58:], 64) // e_shentsize
	if shoff != 0 {
		binary.LittleEndian.PutUint16(h[60:], 3) // e_shnum
	}
	return h
}

// A device ordinal that does not fit a C int never reaches the driver
// (it would be truncated to another device).
func TestDeviceOrdinalRange(t *testing.T) {
	l := testLibcuda(t, 13000, nil)
	const big = 1 << 32
	_, err := l.DeviceGetAttribute(backend.AttrWarpSize, big)
	assert.ErrorIs(t, err, backend.ErrInvalidDevice)
	_, err = l.DevicePrimaryCtxRetain(big)
	assert.ErrorIs(t, err, backend.ErrInvalidDevice)
	_, err = l.DeviceCanAccessPeer(0, big)
	assert.ErrorIs(t, err, backend.ErrInvalidDevice)
	_, err = l.CtxCreate(0, -big)
	assert.ErrorIs(t, err, backend.ErrInvalidDevice)
}

// A name with a NUL byte is refused before the entry point is looked up
// (the generated C-string conversion).
func TestNamesWithNULAreRefused(t *testing.T) {
	l := testLibcuda(t, 13000, nil)
	_, err := l.ModuleGetFunction(1, "scale\x00x")
	assert.ErrorIs(t, err, backend.ErrInvalidValue)
	_, _, err = l.LibraryGetGlobal(1, "g\x00")
	assert.ErrorIs(t, err, backend.ErrInvalidValue)
	assert.False(t, l.syms.Resolved(int(symModuleGetFunction)))
	assert.False(t, l.syms.Resolved(int(symLibraryGetGlobal)))
}

// A string out-parameter is read from the buffer the call filled, up to its
// NUL: gethostname(char *name, size_t len) stands in for cuDeviceGetName and
// cuDeviceGetPCIBusId, which take the buffer and its size the same way.
func TestStringOutParameters(t *testing.T) {
	host, err := os.Hostname()
	require.NoError(t, err)
	l := testLibcuda(t, 13000, map[sym]string{symDeviceGetName: "gethostname", symDeviceGetPCIBusId: "gethostname"})
	name, err := l.DeviceGetName(0)
	require.NoError(t, err)
	assert.Equal(t, host, name)
	bus, err := l.DeviceGetPCIBusID(0)
	require.NoError(t, err)
	assert.Equal(t, host[:min(len(host), 63)], bus)
	_, err = l.DeviceGetName(1 << 40)
	assert.ErrorIs(t, err, backend.ErrInvalidDevice)
}
