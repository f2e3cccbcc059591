package main

import (
	"bytes"
	"go/format"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/bindgen/cdecl"
)

const (
	pkgDir     = "../.."
	abiDir     = "../../../abi"
	nvrtcDir   = "../../../libnvrtc"
	table      = pkgDir + "/entrypoints.txt"
	backendDir = "../../../../driver/backend"
)

// The checked-in output is what the generator writes from the checked-in
// table and package backend. When this fails, run go generate
// ./internal/libcuda.
func TestGeneratedFilesAreCurrent(t *testing.T) {
	out, err := generateFiles(table, backendDir)
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string][]byte{
		filepath.Join(pkgDir, symsFile):   out.syms,
		filepath.Join(pkgDir, callsFile):  out.calls,
		filepath.Join(abiDir, abiFile):    out.abi,
		filepath.Join(nvrtcDir, symsFile): out.nvsyms,
	} {
		have, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(have, want) {
			t.Errorf("%s is not current: run go generate ./internal/libcuda", path)
		}
	}
}

// Every method of backend.API is in the table (generated or hand-written),
// so its sym entry and since version come from the one place; and every
// other method the table names is a method of an optional interface of
// package backend.
func TestTableCoversAPI(t *testing.T) {
	src, err := os.ReadFile(table)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := parseTable("entrypoints.txt", src)
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, e := range entries {
		if e.method != "" {
			listed[e.method] = true
		}
	}
	api := reflect.TypeFor[backend.API]()
	for i := range api.NumMethod() {
		m := api.Method(i).Name
		if !listed[m] {
			t.Errorf("backend.API.%s is not in entrypoints.txt", m)
		}
		delete(listed, m)
	}
	files, err := readBackend(backendDir)
	if err != nil {
		t.Fatal(err)
	}
	methods, _, err := parseBackend(files)
	if err != nil {
		t.Fatal(err)
	}
	for m := range listed {
		if sig := methods[m]; sig == nil || sig.iface == "API" {
			t.Errorf("entrypoints.txt lists %s, which no optional interface of package backend has", m)
		}
	}
}

// The generated methods take what the optional interfaces pass: a slice
// of handles with its count, a by-value CUmemLocation, constant NULLs and
// a strict entry point's version check.
func TestMethodShapes(t *testing.T) {
	sig := &goSig{GoSig: cdecl.GoSig{Params: []goParam{{Name: "g", Type: "uintptr"}, {Name: "deps", Type: "[]uintptr"}, {Name: "loc", Type: "backend.MemLocation"}}, Results: []string{"uintptr", "int"}}}
	e, err := parseLine("F cuF(out CUgraphNode* node, CUgraph g, const CUgraphNode* deps, size_t n, CUmemLocation loc, void* x=0, out size_t* count) since=12000 strict")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := method(&b, new(imports), e, sig); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"l.strictFn(symF)",
		"uintptr(unsafe.Pointer(unsafe.SliceData(deps))), uintptr(len(deps)), locationArg(loc), 0,",
		"runtime.KeepAlive(deps)",
		"int(out.count)",
		"a *loader.SymbolError",
	} {
		if !bytes.Contains(b.Bytes(), []byte(want)) {
			t.Errorf("generated method lacks %q:\n%s", want, b.String())
		}
	}
	// A Go string is a NUL-terminated copy, refused with a NUL inside
	// before the lookup, kept alive over the call; a device address may be
	// a void*.
	e, err = parseLine("G cuG(out CUkernel* k, CUlibrary lib, const char* name, void* addr) since=12000")
	if err != nil {
		t.Fatal(err)
	}
	b.Reset()
	sig = &goSig{GoSig: cdecl.GoSig{Params: []goParam{{Name: "lib", Type: "uintptr"}, {Name: "name", Type: "string"}, {Name: "addr", Type: "uintptr"}}, Results: []string{"uintptr"}}}
	if err := method(&b, new(imports), e, sig); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"cName, err := cstr.Bytes(name)\n\tif err != nil {\n\t\treturn 0, backend.ErrInvalidValue\n\t}\n\tproc, err := l.fn(symG)",
		"dl.Call4(proc, uintptr(unsafe.Pointer(&k)), lib, uintptr(unsafe.Pointer(&cName[0])), addr)\n\truntime.KeepAlive(cName)",
	} {
		src, _ := format.Source(b.Bytes())
		if !bytes.Contains(src, []byte(want)) {
			t.Errorf("generated method lacks %q:\n%s", want, src)
		}
	}
	sig = &goSig{GoSig: cdecl.GoSig{Params: []goParam{{Name: "g", Type: "uintptr"}, {Name: "deps", Type: "[]uintptr"}, {Name: "loc", Type: "backend.MemLocation"}}, Results: []string{"uintptr", "int"}}}
	// A slice needs its count right after it.
	e, err = parseLine("F cuF(out CUgraphNode* node, CUgraph g, const CUgraphNode* deps, CUmemLocation loc, out size_t* count) since=1")
	if err != nil {
		t.Fatal(err)
	}
	if err := method(new(bytes.Buffer), new(imports), e, sig); err == nil {
		t.Error("a slice without its count was accepted")
	}
}

// libnvrtc lines name the library by prefix and take no libcuda options;
// inner entry points have no method.
func TestNVRTCAndInnerLines(t *testing.T) {
	e, err := parseLine("- nvrtcGetPTXSize(nvrtcProgram prog, out size_t* n) since=7000 inner")
	if err != nil {
		t.Fatal(err)
	}
	if e.lib != "nvrtc" || !e.inner || !e.hand {
		t.Errorf("parsed %+v", e)
	}
	for _, line := range []string{
		"- nvrtcF(int x) since=7000 lean", // a libcuda option
		"F nvrtcF(int x) since=7000",      // a method
		"F cuF(int x) since=7000 inner",   // an inner entry point with a method
		"- nvrtc(int x) since=7000",       // no name after the prefix
		"- cublasSgemm(int x) since=7000", // another library
	} {
		if _, err := parseLine(line); err == nil {
			t.Errorf("parseLine(%q) accepted it", line)
		}
	}
}

// The generator rejects what it cannot map.
func TestRejects(t *testing.T) {
	api := map[string]*goSig{
		"F": {GoSig: cdecl.GoSig{Params: []goParam{{Name: "x", Type: "int"}}, Results: []string{"uintptr"}}},
	}
	for _, line := range []string{
		"F cuF(out CUcontext* c, int x)",                    // no since
		"F cuF_v2(out CUcontext* c, int x) since=1",         // versioned base name
		"F cuF(out CUcontext* c, int x) since=1 dlsym=cuG",  // dlsym not a version of the name
		"F cuF(out CUcontext* c, int x) since=1 frobnicate", // unknown option
		"F cuF(out CUcontext c, int x) since=1",             // out-parameter not a pointer
		"F cuF(out CUcontext* c, int x) since=20 cap=10",    // cap before since
	} {
		if _, err := parseLine(line); err == nil {
			t.Errorf("parseLine(%q) accepted it", line)
		}
	}
	for _, line := range []string{
		"F cuF(out int* c, int x) since=1",              // int* is no uintptr
		"F cuF(out CUcontext* c, float x) since=1",      // float from int
		"F cuF(out CUcontext* c) since=1",               // too few parameters
		"F cuF(out CUcontext* c, int x, int y) since=1", // too many parameters
		"F cuF(int x) since=1",                          // too few out-parameters
		"F cuF(out CUcontext* x, int y) since=1",        // out local clashes with parameter x
	} {
		e, err := parseLine(line)
		if err != nil {
			t.Fatalf("parseLine(%q): %v", line, err)
		}
		if err := method(new(bytes.Buffer), new(imports), e, api["F"]); err == nil {
			t.Errorf("method(%q) accepted it", line)
		}
	}
}

// A method of backend.API keeps its signature when an optional interface
// declares one of the same name (backend.NVML's Init); two optional
// interfaces' of one name are not the table's to name.
func TestAPIMethodsWinNameClashes(t *testing.T) {
	files := []backendFile{{"api.go", []byte("package backend\ntype API interface {\n\tInit(flags uint32) error\n}\n")},
		{"nvml.go", []byte("package backend\ntype NVML interface {\n\tInit() error\n\tVersion() (string, error)\n}\ntype Other interface {\n\tVersion() (string, error)\n}\n")}}
	methods, order, err := parseBackend(files)
	if err != nil {
		t.Fatal(err)
	}
	if init := methods["Init"]; init == nil || init.iface != "API" || len(init.Params) != 1 {
		t.Errorf("Init is %+v, want backend.API's", init)
	}
	if v, ok := methods["Version"]; !ok || v != nil {
		t.Errorf("Version is %+v, want nil (two optional interfaces)", v)
	}
	if len(order) != 1 || order[0] != "Init" {
		t.Errorf("API order %v", order)
	}
}
