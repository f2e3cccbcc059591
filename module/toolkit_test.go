package module_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/conformance/segscale"
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/module"
)

// isolateToolkit clears what ToolkitIncludePaths reads.
func isolateToolkit(t *testing.T) {
	for _, v := range []string{module.ToolkitIncludeEnv, "CUDA_HOME", "CUDA_PATH", "VIRTUAL_ENV", "CONDA_PREFIX"} {
		t.Setenv(v, "")
	}
	t.Setenv("PATH", t.TempDir())
	t.Setenv("HOME", t.TempDir())
}

func mkdirs(t *testing.T, parts ...string) string {
	t.Helper()
	d := filepath.Join(parts...)
	require.NoError(t, os.MkdirAll(d, 0o755))
	return d
}

func write(t *testing.T, path, text string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
}

func TestToolkitIncludePaths(t *testing.T) {
	isolateToolkit(t)
	root := t.TempDir()
	home := filepath.Join(root, "cuda-13.0")
	inc := mkdirs(t, home, "include")
	cccl := mkdirs(t, inc, "cccl")
	t.Setenv("CUDA_PATH", filepath.Join(root, "missing"))
	t.Setenv("CUDA_HOME", home)
	assert.Equal(t, []string{cccl, inc}, module.ToolkitIncludePaths(), "CUDA 13: libcu++'s cccl first")

	t.Setenv("CUDA_HOME", "")
	old := filepath.Join(root, "cuda-12.4")
	oldInc := mkdirs(t, old, "include")
	t.Setenv("CUDA_PATH", old)
	assert.Equal(t, []string{oldInc}, module.ToolkitIncludePaths(), "CUDA 12: no cccl")

	a, b := mkdirs(t, root, "a"), mkdirs(t, root, "b")
	bcccl := mkdirs(t, b, "cccl")
	t.Setenv(module.ToolkitIncludeEnv, a+string(os.PathListSeparator)+b+string(os.PathListSeparator)+filepath.Join(root, "none"))
	assert.Equal(t, []string{a, bcccl, b}, module.ToolkitIncludePaths(), "the variable's directories alone")
}

func TestToolkitIncludePathsFromWheels(t *testing.T) {
	if _, err := os.Stat("/usr/local/cuda/include"); err == nil {
		t.Skip("a toolkit in /usr/local/cuda comes before the wheels")
	}
	isolateToolkit(t)
	venv := t.TempDir()
	sp := filepath.Join(venv, "lib", "python3.12", "site-packages")
	cu13 := mkdirs(t, sp, "nvidia", "cu13", "include")
	cu13cccl := mkdirs(t, cu13, "cccl")
	t.Setenv("VIRTUAL_ENV", venv)
	assert.Equal(t, []string{cu13cccl, cu13}, module.ToolkitIncludePaths())

	venv12 := t.TempDir()
	sp = filepath.Join(venv12, "lib", "python3.11", "site-packages")
	rt := mkdirs(t, sp, "nvidia", "cuda_runtime", "include")
	nv := mkdirs(t, sp, "nvidia", "cuda_nvrtc", "include")
	t.Setenv("VIRTUAL_ENV", venv12)
	assert.Equal(t, []string{rt, nv}, module.ToolkitIncludePaths(), "the cu12 wheels")

	t.Setenv("VIRTUAL_ENV", t.TempDir())
	assert.Nil(t, module.ToolkitIncludePaths(), "nothing installed")
}

// toolkitSource includes a toolkit header, which includes another.
const toolkitSource = "#include \"tk/scale.h\"\n#ifndef TK_DETAIL\n#error tk/detail.h not read\n#endif\n" + segscale.Source

// A source that includes a toolkit header compiles with the toolkit's
// directories (on the fake's pretend compiler, whose preprocessor reads
// them as NVRTC does); with NoToolkitIncludes, it cannot open the header.
// Every header reached is in the cache key by its contents.
func TestCompileFindsToolkitHeaders(t *testing.T) {
	isolateToolkit(t)
	inc := t.TempDir()
	write(t, filepath.Join(inc, "tk", "scale.h"), "#pragma once\n#include \"tk/detail.h\"\n")
	write(t, filepath.Join(inc, "tk", "detail.h"), "#define TK_DETAIL 1\n")
	t.Setenv(module.ToolkitIncludeEnv, inc)

	ctx, s := setup(t, fakeDriver(fake.PretendNVRTC()))
	_, err := module.Compile(ctx, toolkitSource, module.Options{NoCache: true, NoToolkitIncludes: true})
	var ce *module.CompileError
	require.ErrorAs(t, err, &ce, "turned off, the header is not found")
	assert.Contains(t, ce.Log, "tk/scale.h")
	assert.NotContains(t, ce.Flags, "-I"+inc)

	dir := t.TempDir()
	m := compileSegscale(t, ctx, module.Options{CacheDir: dir})
	require.False(t, m.Cached())
	m = compileToolkit(t, ctx, dir)
	require.False(t, m.Cached(), "another source")
	f, err := m.Function(segscale.Name)
	require.NoError(t, err)
	runSegscale(t, ctx, s, f, 32)
	assert.True(t, compileToolkit(t, ctx, dir).Cached(), "the same headers: a hit")

	write(t, filepath.Join(inc, "tk", "detail.h"), "#define TK_DETAIL 2\n")
	assert.False(t, compileToolkit(t, ctx, dir).Cached(), "a header it reaches changed: a miss")
	assert.True(t, compileToolkit(t, ctx, dir).Cached())
	assert.True(t, compileSegscale(t, ctx, module.Options{CacheDir: dir}).Cached(), "a source that includes nothing is not affected")

	write(t, filepath.Join(inc, "tk", "scale.h"), "#pragma once\n#include \"tk/detail.h\"\n#include \"tk/new.h\"\n")
	_, err = module.Compile(ctx, toolkitSource, module.Options{CacheDir: dir})
	require.Error(t, err, "tk/new.h is missing")
	write(t, filepath.Join(inc, "tk", "new.h"), "\n")
	assert.False(t, compileToolkit(t, ctx, dir).Cached(), "a header installed since: a miss")
}

// A header held in Options.Headers looks for no toolkit.
func TestCompileHeldHeaderNeedsNoToolkit(t *testing.T) {
	isolateToolkit(t)
	t.Setenv(module.ToolkitIncludeEnv, t.TempDir()+"/none")
	ctx, _ := setup(t, fakeDriver(fake.PretendNVRTC()))
	m, err := module.Compile(ctx, toolkitSource, module.Options{NoCache: true, Headers: map[string]string{"tk/scale.h": "#define TK_DETAIL 1\n"}})
	require.NoError(t, err)
	m.Close()
}

func compileToolkit(t *testing.T, ctx *driver.Context, dir string) *module.Module {
	t.Helper()
	m, err := module.Compile(ctx, toolkitSource, module.Options{CacheDir: dir})
	require.NoError(t, err)
	t.Cleanup(func() { m.Close() })
	return m
}

// A user's header (in IncludePaths) that includes a toolkit header brings
// the toolkit header into the key too.
func TestToolkitHeadersThroughUserHeaders(t *testing.T) {
	isolateToolkit(t)
	inc, user := t.TempDir(), t.TempDir()
	write(t, filepath.Join(inc, "tk", "scale.h"), "#pragma once\n#include \"tk/detail.h\"\n")
	write(t, filepath.Join(inc, "tk", "detail.h"), "#define TK_DETAIL 1\n")
	write(t, filepath.Join(user, "mine.h"), "#include \"tk/scale.h\"\n")
	t.Setenv(module.ToolkitIncludeEnv, inc)
	ctx, _ := setup(t, fakeDriver(fake.PretendNVRTC()))
	dir := t.TempDir()
	src := "#include \"mine.h\"\n#ifndef TK_DETAIL\n#error no toolkit\n#endif\n" + segscale.Source
	opts := module.Options{CacheDir: dir, IncludePaths: []string{user}}
	compile := func() bool {
		m, err := module.Compile(ctx, src, opts)
		require.NoError(t, err)
		defer m.Close()
		return m.Cached()
	}
	require.False(t, compile())
	require.True(t, compile())
	write(t, filepath.Join(inc, "tk", "detail.h"), "#define TK_DETAIL 2\n")
	assert.False(t, compile(), "the toolkit header behind the user's changed")
}
