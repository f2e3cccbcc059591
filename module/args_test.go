package module_test

import (
	"bufio"
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/conformance"
	"github.com/nocgo/cuda/conformance/kernels"
	"github.com/nocgo/cuda/conformance/segscale"
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/module"
	"github.com/nocgo/cuda/stream"
)

// countLaunch is a backend whose cuLaunchKernel only counts the launches:
// it allocates nothing, so allocation counts are the module package's own.
type countLaunch struct {
	fake.Backend
	n *atomic.Int64
}

func (c countLaunch) LaunchKernel(f uintptr, grid, block [3]uint32, sharedMem uint32, s uintptr, params unsafe.Pointer) error {
	if params == nil {
		return driver.ErrInvalidValue
	}
	c.n.Add(1)
	return nil
}

// launchSetup returns segment_scale on a countLaunch backend, with a stream,
// the launch counter and two buffers of n elements.
func launchSetup(t *testing.T, n int) (*stream.Stream, *module.Function, *atomic.Int64, *memory.Buffer[float32], *memory.Buffer[float32]) {
	t.Helper()
	launches := new(atomic.Int64)
	drv, err := driver.New(countLaunch{fake.NewBackend(fakeOptions()...), launches})
	require.NoError(t, err)
	ctx, s := setup(t, drv)
	f, err := compileSegscale(t, ctx, module.Options{NoCache: true}).Function(segscale.Name)
	require.NoError(t, err)
	return s, f, launches, alloc(t, ctx, n), alloc(t, ctx, n)
}

// leakyPtr has a device-pointer method that keeps its receiver: were Launch
// to call it on a value the caller built on its stack, a pointer to that
// stack would be left in a global.
type leakyPtr struct{ addr uintptr }

var leaked *leakyPtr

func (p *leakyPtr) Ptr() uintptr {
	leaked = p
	return p.addr
}

// devAddr is a plain value with a Ptr method.
type devAddr struct{ addr uintptr }

func (d devAddr) Ptr() uintptr { return d.addr }

// TestLaunchRefusesPtrMethods: only *memory.Buffer values are device
// pointers; a user type's Ptr method is never called, and the launch is
// refused (nothing launched) with an error that says what to pass.
func TestLaunchRefusesPtrMethods(t *testing.T) {
	const n = 256
	s, f, launches, out, in := launchSetup(t, n)
	cfg := module.Config{Grid: module.Dim(1), Block: module.Dim(n)}
	for _, arg := range []any{&leakyPtr{addr: in.Ptr()}, devAddr{in.Ptr()}} {
		err := f.Launch(s, cfg, out, arg, int32(n))
		require.ErrorIs(t, err, module.ErrArgs)
		assert.Contains(t, err.Error(), "argument 1 (const float* in) is a ")
		assert.Contains(t, err.Error(), "only *memory.Buffer values pass as device pointers")
		assert.Contains(t, err.Error(), "pass uintptr(x.Ptr())")
		{
			_, err := f.Args(out, arg, int32(n))
			assert.ErrorIs(t, err, module.ErrArgs)
		}
		args, err := f.Args(out, in, int32(n))
		require.NoError(t, err)
		assert.ErrorIs(t, args.Set(1, arg), module.ErrArgs)
	}
	assert.Nil(t, leaked, "Ptr was not called")
	assert.Zero(t, launches.Load(), "nothing was launched")

	// What the error says to do works.
	p := &leakyPtr{addr: in.Ptr()}
	require.NoError(t, f.Launch(s, cfg, out, uintptr(p.Ptr()), int32(n)))
	assert.EqualValues(t, 1, launches.Load())
}

// TestLaunchBufferTypes: buffers of any element type, and their views,
// pass their own device address.
func TestLaunchBufferTypes(t *testing.T) {
	drv := fakeDriver()
	ctx, s := setup(t, drv)
	k := conformance.Kernels(t, ctx)
	f, err := k.Function(kernels.Add1)
	require.NoError(t, err)
	const n = 64
	p := alloc(t, ctx, n)
	require.NoError(t, memory.Fill(s, p, 0))
	cfg := module.Config{Grid: module.Dim(1), Block: module.Dim(n)}
	// add1 takes a float*: byte views and buffers of structs pass
	// (reinterpretations); a buffer of another number type does not.
	u, err := memory.Alloc[uint32](ctx, n)
	require.NoError(t, err)
	defer u.Close()
	require.NoError(t, memory.Fill(s, u, 0))
	type pair struct{ A, B float32 }
	pp, err := memory.Alloc[pair](ctx, n/2)
	require.NoError(t, err)
	defer pp.Close()
	view := func(v any, err error) any {
		t.Helper()
		require.NoError(t, err)
		return v
	}
	ppb, err := pp.Bytes()
	require.NoError(t, err)
	require.NoError(t, memory.Fill(s, ppb, 0))
	for _, a := range []any{p, view(p.Slice(8, 16)), view(p.Bytes()), pp, view(pp.Slice(4, 8))} {
		require.NoError(t, f.Launch(s, cfg, a, int32(8)))
	}
	err = f.Launch(s, cfg, u, int32(8))
	assert.ErrorIs(t, err, module.ErrArgs)
	assert.Contains(t, err.Error(), "is a *memory.Buffer[uint32], but the C parameter is float* p: pass a *memory.Buffer[float32]")
	require.NoError(t, s.Synchronize())
	got := make([]float32, n)
	require.NoError(t, memory.CopyToHost(got, p))
	want := make([]float32, n)
	for i := range 8 {
		want[i] = 2 // p, p.Bytes()
		want[8+i] = 1
	}
	assert.Equal(t, want, got)
	gotp := make([]pair, n/2)
	require.NoError(t, memory.CopyToHost(gotp, pp))
	wantp := make([]pair, n/2)
	for i := range 4 {
		wantp[i] = pair{1, 1}
		wantp[4+i] = pair{1, 1}
	}
	assert.Equal(t, wantp, gotp)
}

// TestLaunchAllocs: with a cuLaunchKernel that allocates nothing, the
// prepared launch, Args.Set and Launch itself allocate nothing, with scalars
// that change on every call (so that the compiler cannot box them as
// constants: each would be heap-allocated if an argument escaped).
func TestLaunchAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are meaningless under the race detector")
	}
	const n = 1 << 20
	s, f, launches, out, in := launchSetup(t, n)
	cfg := module.Config{Grid: module.Cover(n, 256), Block: module.Dim(256)}
	count := int32(n)

	args, err := f.Args(out, in, count)
	require.NoError(t, err)
	assert.Zero(t, testing.AllocsPerRun(500, func() {
		if err := f.LaunchArgs(s, cfg, args); err != nil {
			t.Fatal(err)
		}
	}), "LaunchArgs")

	assert.Zero(t, testing.AllocsPerRun(500, func() {
		count++
		if err := args.Set(2, count); err != nil {
			t.Fatal(err)
		}
	}), "Args.Set with an int32")
	assert.Zero(t, testing.AllocsPerRun(500, func() {
		if err := args.Set(1, in); err != nil {
			t.Fatal(err)
		}
	}), "Args.Set with a buffer")

	assert.Zero(t, testing.AllocsPerRun(500, func() {
		count++
		if err := f.Launch(s, cfg, out, in, count); err != nil {
			t.Fatal(err)
		}
	}), "Launch with buffers and an int32")
	type texel struct{ R, G, B, A uint8 } // a Buffer type found by reflection
	tex, err := memory.Alloc[texel](out.Context(), n)
	require.NoError(t, err)
	defer tex.Close()
	assert.Zero(t, testing.AllocsPerRun(500, func() {
		count++
		if err := f.Launch(s, cfg, out, tex, count); err != nil {
			t.Fatal(err)
		}
	}), "Launch with a buffer of structs")
	view, err := in.Slice(0, n/2)
	require.NoError(t, err)
	assert.Zero(t, testing.AllocsPerRun(500, func() {
		count++
		if err := f.Launch(s, cfg, out, view, count); err != nil {
			t.Fatal(err)
		}
	}), "Launch with a view")
	assert.Zero(t, testing.AllocsPerRun(500, func() {
		count++
		if err := f.Launch(s, cfg, out.Ptr(), uintptr(in.Ptr()), count); err != nil {
			t.Fatal(err)
		}
	}), "Launch with raw addresses")
	assert.Positive(t, launches.Load())
}

// TestLaunchStructAllocs: a struct passed by value is copied without
// allocating, once its type is known.
func TestLaunchStructAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are meaningless under the race detector")
	}
	launches := new(atomic.Int64)
	drv, err := driver.New(countLaunch{fake.NewBackend(fakeOptions()...), launches})
	require.NoError(t, err)
	ctx, s := setup(t, drv)
	aff, err := conformance.Kernels(t, ctx).Function("affine")
	require.NoError(t, err)
	out := alloc(t, ctx, 64)
	type affine struct {
		A, B float32
		N    int32
	}
	v := affine{2, 1, 64}
	cfg := module.Config{Grid: module.Dim(1), Block: module.Dim(64)}
	assert.Zero(t, testing.AllocsPerRun(500, func() {
		v.N++
		if err := aff.Launch(s, cfg, out, v); err != nil {
			t.Fatal(err)
		}
	}), "Launch with a struct")
	assert.Zero(t, testing.AllocsPerRun(500, func() {
		v.N++
		if err := aff.Launch(s, cfg, out, [3]uint32{1, 2, uint32(v.N)}); err != nil {
			t.Fatal(err)
		}
	}), "Launch with an array")
}

// TestArgsDoNotEscape proves with the compiler's escape analysis (-m=2)
// that the launch paths never let an argument itself reach the heap: for
// Launch and Function.Args (args ...any), nothing at fewer than 2
// dereferences of args flows out, and for Args.Set (v any), nothing at
// fewer than 1. The interfaces themselves (*args) and the boxes they point
// to stay where the caller put them, on its stack; only the contents of
// those boxes may flow out (a buffer's error and context, into the error
// returned about it). The compiler's plain -m output says "leaking param
// content" for these, without the level: -m=2 gives it.
func TestArgsDoNotEscape(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the package with -gcflags=-m=2")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool:", err)
	}
	cmd := exec.Command(goTool, "build", "-gcflags=github.com/nocgo/cuda/module=-m=2", ".")
	outb, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", outb)

	for _, c := range []struct {
		file, recv, fn, param string
		minDerefs             int
	}{
		{"launch.go", "Function", "Launch", "args", 2},
		{"args.go", "Function", "Args", "args", 2},
		{"args.go", "Args", "Set", "v", 1},
	} {
		pos := paramPos(t, c.file, c.recv, c.fn, c.param)
		name := c.recv + "." + c.fn + " " + c.param
		flows := leakDerefs(outb, pos, c.param)
		for _, d := range flows {
			assert.GreaterOrEqual(t, d, c.minDerefs, "%s flows out at %d dereferences:\n%s", name, d, linesAt(outb, pos))
		}
		assert.NotContains(t, string(outb), pos+": leaking param: "+c.param+"\n", name)
		t.Logf("%s: flows out at dereferences %v", name, flows)
	}

	// And no pointer is laundered through a uintptr to hide a flow from
	// the analysis.
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		src, err := os.ReadFile(file)
		require.NoError(t, err)
		assert.NotContains(t, string(src), "uintptr(unsafe.Pointer(", file)
	}
}

// paramPos returns "./file:line:col" of parameter param of method recv.fn,
// as the compiler reports it.
func paramPos(t *testing.T, file, recv, fn, param string) string {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, nil, 0)
	require.NoError(t, err)
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Name.Name != fn || fd.Recv == nil {
			continue
		}
		star, ok := fd.Recv.List[0].Type.(*ast.StarExpr)
		if !ok || star.X.(*ast.Ident).Name != recv {
			continue
		}
		for _, field := range fd.Type.Params.List {
			for _, id := range field.Names {
				if id.Name == param {
					p := fset.Position(id.Pos())
					return "./" + file + ":" + strconv.Itoa(p.Line) + ":" + strconv.Itoa(p.Column)
				}
			}
		}
	}
	t.Fatalf("no parameter %s of (*%s).%s in %s", param, recv, fn, file)
	return ""
}

var leakLine = regexp.MustCompile(`^(\S+): parameter (\w+) leaks to .* with derefs=(\d+):$`)

// leakDerefs returns the dereference counts of the leaks -m=2 reports for
// the parameter declared at pos.
func leakDerefs(out []byte, pos, param string) []int {
	var ds []int
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		m := leakLine.FindStringSubmatch(sc.Text())
		if m == nil || m[1] != pos || m[2] != param {
			continue
		}
		d, _ := strconv.Atoi(m[3])
		ds = append(ds, d)
	}
	return ds
}

// linesAt returns the compiler's lines about pos, for failure messages.
func linesAt(out []byte, pos string) string {
	var b bytes.Buffer
	for _, l := range bytes.Split(out, []byte("\n")) {
		if bytes.HasPrefix(l, []byte(pos+":")) {
			b.Write(l)
			b.WriteByte('\n')
		}
	}
	return b.String()
}
