package cudatest_test

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/cudatest"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/module"
)

// Context and Stream are the set-up in one call, with their cleanups: the
// fake's leak check at the end of the test finds nothing open.
func TestContextAndStream(t *testing.T) {
	s := cudatest.Stream(t)
	cc := s.Context()
	assert.False(t, cc.Closed())
	buf, err := memory.FromSliceOn(s, []float32{1, 2, 3})
	require.NoError(t, err)
	defer buf.Close()
	got, err := memory.ToSliceOn(s, buf)
	require.NoError(t, err)
	assert.Equal(t, []float32{1, 2, 3}, got)

	t.Run("Context", func(t *testing.T) {
		cc := cudatest.Context(t)
		assert.Equal(t, 0, cc.Device().Ordinal())
	})
}

// logRecorder is a testing.TB that keeps what the test logs.
type logRecorder struct {
	testing.TB
	logs []string
}

func (r *logRecorder) Log(args ...any) { r.logs = append(r.logs, fmt.Sprint(args...)) }
func (r *logRecorder) Logf(format string, args ...any) {
	r.logs = append(r.logs, fmt.Sprintf(format, args...))
}

// Driver explains why it fell back to the fake (every library path tried)
// once per test binary, and says only which driver it is afterwards.
func TestDriverLogsQuietly(t *testing.T) {
	if !cudatest.IsFake(cudatest.Driver(t)) {
		t.Skip("on the real driver: nothing to explain")
	}
	for i := range 3 {
		r := &logRecorder{TB: t}
		cudatest.Driver(r)
		require.Len(t, r.logs, 1)
		assert.Less(t, len(r.logs[0]), 100, "call %d logs one short line: %s", i, r.logs[0])
		assert.Contains(t, r.logs[0], "fake driver")
	}
}

// NewForeign holds its context: the test may close it first (here in a
// defer, which runs before every cleanup), and the foreign objects are
// still destroyed in it at the end.
func TestForeignKeepsItsContext(t *testing.T) {
	cc := cudatest.Context(t)
	other := cudatest.NewForeign(t, cc)
	other.Stream(true)
	other.Event()
	other.Alloc(64)
	require.NoError(t, cc.Close())
	assert.True(t, cc.Closed())
	other.Alloc(64) // the maker works after the user's Close, as any object does
}

// module.Compile on cudatest's fake caches in the test's own directory:
// the user's cache is never written, and a second compile hits.
func TestCompileCacheStaysInTheTest(t *testing.T) {
	home := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", filepath.Join(home, "cache"))
	t.Setenv("HOME", home)
	t.Setenv(module.CacheDirEnv, "")
	t.Setenv(module.CacheEnv, "")
	userDir, ok := module.CacheDir()
	require.True(t, ok)
	require.True(t, strings.HasPrefix(userDir, home), userDir)

	const src = `extern "C" __global__ void k(float* p) { p[0] = 1; }`
	drv := cudatest.Fake(t, fake.Kernel("k", func(t fake.Thread, p fake.Ptr) {}))
	dev, err := drv.Device(0)
	require.NoError(t, err)
	cc, err := dev.PrimaryContext()
	require.NoError(t, err)
	defer cc.Close()
	for i, cached := range []bool{false, true} {
		m, err := module.Compile(cc, src, module.Options{})
		require.NoError(t, err)
		assert.Equal(t, cached, m.Cached(), "compile %d", i)
		require.NoError(t, m.Close())
	}
	_, err = os.Stat(userDir)
	assert.True(t, os.IsNotExist(err), "the user's cache %s is not written: %v", userDir, err)
}

// fatalTB is a testing.TB whose Fatalf records the message and ends
// the goroutine, as testing.T's does.
type fatalTB struct {
	testing.TB
	fatal string
}

func (r *fatalTB) Fatalf(format string, args ...any) {
	r.fatal = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// The helpers fail the test at once, saying why; what they make is closed
// at the test's end (the fake's leak check would fail it otherwise).
func TestHelpersFailTheTest(t *testing.T) {
	s := cudatest.Stream(t)
	run := func(f func(tb testing.TB)) string {
		r := &fatalTB{TB: t}
		done := make(chan struct{})
		go func() { defer close(done); f(r) }()
		<-done
		return r.fatal
	}
	// NVIDIA's NVRTC refuses "not C" (module.Compile fails); the fake's
	// pretend compiler finds no kernel in it (Function fails).
	assert.Contains(t, run(func(tb testing.TB) { cudatest.Kernel(tb, s, "not C", "k") }), "cudatest.Kernel: module.")
	assert.Contains(t, run(func(tb testing.TB) { cudatest.Kernel(tb, s, `extern "C" __global__ void k() {}`, "kk") }), "cudatest.Kernel: ")
	assert.Contains(t, run(func(tb testing.TB) { cudatest.Alloc[float32](tb, s, -1) }), "cudatest.Alloc: ")
	assert.Contains(t, run(func(tb testing.TB) { cudatest.FromSlice[float32](tb, nil, nil) }), "cudatest.FromSlice: ")
	b := cudatest.FromSlice(t, s, []int32{4, 5})
	assert.Equal(t, []int32{4, 5}, cudatest.ToSlice(t, s, b))
	require.NoError(t, b.Close())
	assert.Contains(t, run(func(tb testing.TB) { cudatest.ToSlice(tb, s, b) }), "cudatest.ToSlice: ")
}
