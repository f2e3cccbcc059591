package main

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/nocgo/cuda/driver/backend"
)

const (
	pkgDir  = "../.."
	table   = pkgDir + "/entrypoints.txt"
	apiFile = "../../../../driver/backend/api.go"
)

// The checked-in output is what the generator writes from the checked-in
// table and API. When this fails, run go generate ./internal/libcuda.
func TestGeneratedFilesAreCurrent(t *testing.T) {
	files, err := generateFiles(table, apiFile)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range files {
		have, err := os.ReadFile(filepath.Join(pkgDir, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(have, want) {
			t.Errorf("internal/libcuda/%s is not current: run go generate ./internal/libcuda", name)
		}
	}
}

// Every method of backend.API is in the table (generated or hand-written),
// so its sym entry and since version come from the one place; and the table
// names no method backend.API lacks.
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
	for m := range listed {
		t.Errorf("entrypoints.txt lists %s, which backend.API lacks", m)
	}
}

// The generator rejects what it cannot map.
func TestRejects(t *testing.T) {
	api := map[string]*goSig{
		"F": {params: []goParam{{"x", "int"}}, results: []string{"uintptr"}},
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
