package main

import (
	"bytes"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// generateLine is the prefix of the go:generate lines that run bindgen.
const generateLine = "//go:generate go run github.com/nocgo/cuda/internal/bindgen "

// bindings returns the configuration of every go:generate line of the
// module that runs bindgen, keyed by the output's path.
func bindings(t *testing.T) map[string]*config {
	t.Helper()
	found := map[string]*config{}
	err := filepath.WalkDir("../..", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != "../.." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, line := range strings.Split(string(src), "\n") {
			args, ok := strings.CutPrefix(line, generateLine)
			if !ok {
				continue
			}
			c, err := parseFlags(strings.Fields(args))
			require.NoError(t, err, "%s: %s", path, line)
			f, err := parser.ParseFile(token.NewFileSet(), path, src, parser.PackageClauseOnly)
			require.NoError(t, err)
			c.pkg, c.dir = f.Name.Name, filepath.Dir(path)
			found[filepath.Join(c.dir, c.output)] = c
		}
		return nil
	})
	require.NoError(t, err)
	return found
}

// Every checked-in output is what its go:generate line writes from the
// checked-in table and interface. When this fails, run go generate in the
// package it names.
func TestGeneratedFilesAreCurrent(t *testing.T) {
	found := bindings(t)
	for _, want := range []string{"libcublas/zz_generated.go", "libcublas/zz_generated_lt.go", "libcufft/zz_generated.go",
		"libcurand/zz_generated.go", "libnccl/zz_generated.go", "libnvjitlink/zz_generated.go"} {
		assert.Contains(t, found, filepath.Join("../../internal", want), "no go:generate line writes it")
	}
	for path, c := range found {
		want, err := generateFile(c)
		if !assert.NoError(t, err, path) {
			continue
		}
		have, err := os.ReadFile(path)
		require.NoError(t, err)
		if !bytes.Equal(have, want) {
			t.Errorf("%s is not current: run go generate ./%s", path, strings.TrimPrefix(filepath.ToSlash(c.dir), "../../"))
		}
	}
}

// demo generates the binding of testdata/demo.
func demo(t *testing.T, table string, flags ...string) (string, error) {
	t.Helper()
	dir := t.TempDir()
	api, err := os.ReadFile("testdata/demo/api.go")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "api.go"), api, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "entrypoints.txt"), []byte(table), 0o644))
	c, err := parseFlags(append([]string{"-iface", "API", "-api", ".", "-type", "Demo", "-prefix", "demo"}, flags...))
	require.NoError(t, err)
	c.pkg, c.dir = "demo", dir
	src, err := generateFile(c)
	return string(src), err
}

// Each conversion of the package documentation writes the code it says.
func TestConversions(t *testing.T) {
	table, err := os.ReadFile("testdata/demo/entrypoints.txt")
	require.NoError(t, err)
	src, err := demo(t, string(table))
	require.NoError(t, err)
	for _, want := range []string{
		"package demo\n",
		// the index and the table, since kept; a versioned name's constant drops its _v2
		"symOpen ", "sym = iota // demoOpen_v2",
		`{Name: "demoCount", Since: 20300},`,
		`symStatusString: {Name: "demoStatusString"},`, // a "-" entry: an index only
		"numSyms\n",
		// an out handle; the receiver's fn and check
		"func (l *Demo) Open() (uintptr, error) {\n\tproc, err := l.fn(symOpen)",
		"var handle uintptr\n\tres := dl.Call1(proc, uintptr(unsafe.Pointer(&handle)))\n\tif err := l.check(symOpen, res); err != nil {\n\t\treturn 0, err\n\t}\n\treturn handle, nil",
		// an enum; an unsigned int out as a Go int
		"var count uint32\n\tres := dl.Call3(proc, h, uintptr(mode), uintptr(unsafe.Pointer(&count)))",
		"return int(count), nil",
		// a C int checked before any lookup, a bool, a double in a floating-point register
		"if !cInt(n) {\n\t\treturn l.tooBig(symScale)\n\t}\n\tproc, err := l.fn(symScale)",
		"onInt := uintptr(0)\n\tif on {\n\t\tonInt = 1\n\t}",
		"byBits := uintptr(math.Float64bits(by))",
		"res := dl.CallFP4(proc, h, uintptr(n), onInt, 0, byBits, 0)",
		// a slice and its int count, kept alive; errctx
		"if !cInt(len(xs)) {",
		"dl.Call4(proc, h, uintptr(unsafe.Pointer(unsafe.SliceData(xs))), uintptr(len(xs)), uintptr(unsafe.Pointer(&total)))\n\truntime.KeepAlive(xs)",
		"if err := l.checkIn(symSum, res, h); err != nil {",
		// a struct by pointer, a constant, a struct and a bool out; zero results on failure
		"dl.Call6(proc, h, uintptr(unsafe.Pointer(p)), 0, uintptr(n), uintptr(unsafe.Pointer(&where)), uintptr(unsafe.Pointer(&found)))\n\truntime.KeepAlive(p)",
		"return *new(Point), false, err",
		"return where, found != 0, nil",
		"func cInt(v int) bool",
		// a string out of a buffer of the constant size that follows
		"var name [64]byte\n\tres := dl.Call3(proc, h, uintptr(unsafe.Pointer(&name[0])), 64)",
		"return cstr.FromBytes(name[:]), nil",
		`"github.com/nocgo/cuda/internal/cstr"`,
	} {
		assert.Contains(t, src, want)
	}
	assert.NotContains(t, src, "Size()", "a hand method is not generated")
	assert.NotContains(t, src, "demo.", "the package's own types are not qualified")
}

// A table the generator cannot turn into code is refused with the line and
// the reason.
func TestRefusals(t *testing.T) {
	for table, want := range map[string]string{
		"Open demoOpen(out demo_t* h) bogus\n":                                   "entrypoints.txt:1: demoOpen: unknown option",
		"Open demoOpen(out demo_t h)\n":                                          "type demo_t is no pointer",
		"Open demoOpen(out demo_t* h)\nOpen demoOpen2(out demo_t* h)\n":          "method Open already listed at entrypoints.txt:1",
		"Open demoOpen(out demo_t* h)\n- demoOpen(void)\n":                       "demoOpen already listed",
		"Nope demoNope()\n":                                                      "interface API has no method Nope",
		"Open demoOpen()\n":                                                      "Open has 1 results besides the error, the C signature 0 out-parameters",
		"Count demoCount(demo_t h, out unsigned int* c)\n":                       "Count has 2 parameters, the C signature takes 1",
		"Count demoCount(demo_t h, demo_mode m, out float* c)\n":                 "no conversion to a Go int",
		"Scale demoScale(demo_t h, int n, float by, int on)\n":                   "no conversion from Go by float64",
		"Sum demoSum(demo_t h, const int* xs, out long long* t)\n":               "is followed by its size_t or int count",
		"Open demoOpen(out demo_t* proc)\n":                                      "out-parameter proc clashes",
		"Count demoCount(demo_t h, demo_mode m, out unsigned int* c) errctx=x\n": "has no parameter x",
		"Open demoOpen_v2(out demo_t* h)\n- demoOpen(void)\n":                    "both give the constant symOpen",
		"Name demoName(demo_t h, out char* name, unsigned int length)\n":         "needs the buffer's size next",
		"# nothing\n": "no entry points",
		"family S demoSa demoDa\nfamily T demoSb\n": "family T has 1 entry points, S 2",
	} {
		_, err := demo(t, table)
		if assert.Error(t, err, table) {
			assert.Contains(t, err.Error(), want, table)
		}
	}
}

// -open writes the receiver type, its opener and fn, with the Needs given.
func TestOpen(t *testing.T) {
	src, err := demo(t, "Open demoOpen(out demo_t* h)\n", "-open", "OpenDemo:NCCL", "-needs", "needs")
	require.NoError(t, err)
	for _, want := range []string{
		"type Demo struct {\n\tlib  *loader.Library\n\tsyms *symtab.Table",
		"var _ API = (*Demo)(nil)",
		"func OpenDemo() (*Demo, error) {\n\tlib, err := loader.Open(loader.NCCL)",
		"return &Demo{lib: lib, syms: symtab.InLibrary(lib, symEntries[:], needs)}, nil",
		"func (l *Demo) fn(s sym) (uintptr, error) { return l.syms.Get(int(s)) }",
		"-open OpenDemo:NCCL -needs needs from entrypoints.txt",
	} {
		assert.Contains(t, src, want)
	}
	_, err = demo(t, "Open demoOpen(out demo_t* h)\n", "-open", "OpenDemo")
	assert.ErrorContains(t, err, "want Func:Kind")
}
